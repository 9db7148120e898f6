"""The SVG transition graphs of the report (paper Figures 3, 7, 8, 9, 11)."""

import re
import xml.etree.ElementTree as ET

import pytest

from tabprobe.probes import transition_rules
from tabprobe.report.figures import transition_graph

SVG = "{http://www.w3.org/2000/svg}"
SPLITS = ["alpha1", "alpha2", "alpha3"]


def edges(svg: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(before, after) -> (validity class, label text) read back from the drawn SVG."""
    out = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        tooltip = group.find(f"{SVG}title").text
        before, after = re.match(r"(\w) → (\w):", tooltip).groups()
        label = [t.text for t in group.iter(f"{SVG}text")]
        assert len(label) == 1
        out[(before, after)] = (group.get("class").split()[1], label[0])
    return out


RULES = transition_rules()


@pytest.mark.parametrize("rule_name", sorted(RULES))
def test_every_transition_is_drawn_and_exactly_the_invalid_ones_are_red(rule_name):
    rule = RULES[rule_name]
    labels = rule.labels  # a two-label (TabFact) rule draws E and C only
    percent = {(b, a): [10.0 * i + j, 20.5, None] for i, b in enumerate(labels) for j, a in enumerate(labels)}
    svg = transition_graph(percent, rule, SPLITS, f"{rule_name} · model")
    drawn = edges(svg)
    assert sorted(drawn) == sorted((b, a) for b in labels for a in labels)  # 9 (or 4) edges, self-loops included
    for (before, after), (validity, text) in drawn.items():
        assert validity == ("valid" if rule.is_valid(before, after) else "invalid")
        i, j = labels.index(before), labels.index(after)
        assert text == f"{10.0 * i + j:.2f}, 20.50, –"  # one number per split, "–" where missing
    red_paths = [p for p in ET.fromstring(svg).iter(f"{SVG}path") if p.get("stroke") == "#c62828"]
    assert len(red_paths) == sum(not rule.is_valid(b, a) for b in labels for a in labels)


def test_the_figure_is_standalone_and_deterministic():
    percent = {("E", "E"): [90.75, 91.44, 91.08], ("E", "C"): [3.23, 3.7, 3.01]}
    svg = transition_graph(percent, RULES["row_deletion"], SPLITS, "row_deletion <m&m>")
    assert svg == transition_graph(dict(percent), RULES["row_deletion"], SPLITS, "row_deletion <m&m>")
    root = ET.fromstring(svg)  # well-formed, the title escaped
    assert root.find(f"{SVG}title").text == "row_deletion <m&m>"
    assert " id=" not in svg and "href" not in svg  # no ids to clash with another figure, no links
    assert "alpha1, alpha2, alpha3" in svg  # the legend names the splits in label order
    assert "90.75, 91.44, 91.08" in svg
