"""The Noise, Distribution and Logic perturbations (numerical-qa-robustness section 4.2) of the
templated comparisons, on hand-written tables: what each must change and must leave alone, and
labels recomputed, by rule, from the numbers as written in the table and the hypothesis. Here what
holds of the three; what each does on its own is in tests/probes/test_probe_<name>.py, on this
split (helpers in tests/probes/probe_helpers.py), and the label rule they share in
tests/probes/test_number_templates.py."""

from __future__ import annotations

import dataclasses
import json
import re

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import Example, ProbeExample, get_probe, invariants
from tabprobe.probes.generation import generate

TABLES = {
    "T40": Table(
        "T40",
        "Río Verde",
        (
            Row("Length", ("42 km",)),  # a measure: may take a fraction
            Row("Tributaries", ("3",)),  # a count: never a fraction
            Row("Source", ("Sierra Alta",)),
            Row("Discovered", ("1979",)),  # a year: no quantity at all
        ),
        "River",
    ),
    "T41": Table(
        "T41",
        "Río Azul",
        (Row("Length", ("1,234 km",)), Row("Dams", ("7",)), Row("Mouth", ("Lago Sur",))),
        "River",
    ),
    "T42": Table("T42", "Ada Quill", (Row("Born", ("March 3, 1950",)), Row("Children", ("2",))), "Person"),
    "T43": Table(
        "T43", "Hugo", (Row("Directed by", ("Martin Scorsese",)), Row("Running time", ("126 minutes",))), "Film"
    ),
    "T44": Table("T44", "Free agent", (Row("Length", ("12 km",)),), "River"),  # a section header, no subject
    "T45": Table("T45", "Ola Brin", (Row("Born", ("1901",)), Row("Occupation", ("Poet",))), "Person"),
}
HYPOTHESES = [
    ("T40", "The Río Verde is 42 km long.", "E"),
    ("T41", "The Río Azul has 12 dams.", "C"),
    ("T42", "Ada Quill was a poet.", "N"),
    ("T43", "Hugo is a film by Martin Scorsese.", "E"),
    ("T44", "The free agent signed in 2019.", "N"),
    ("T45", "Ola Brin was born in 1901.", "E"),
]
EXAMPLES = pa.table(
    {
        "uid": [f"dev:{i + 2}" for i in range(len(HYPOTHESES))],
        "table_id": [t for t, _, _ in HYPOTHESES],
        "hypothesis": [h for _, h, _ in HYPOTHESES],
        "label": [lab for _, _, lab in HYPOTHESES],
    },
    schema=schemas.EXAMPLES,
)
NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
COMPARISON = re.compile(r"\b(more than|less than|fewer than|exactly|at least|at most) " + NUMBER)


def run(name, seed, options=None):
    out, coverage = generate(name, EXAMPLES, TABLES, seed=seed, options=options or {})
    return out.to_pylist(), coverage


def test_where_no_template_applies_each_probe_says_why():
    for name in ("num_noise", "num_distribution", "num_logic"):
        out, coverage = run(name, seed=1)
        assert "dev:6" not in {r["orig_uid"] for r in out}  # "Free agent" names no subject
        assert "dev:7" not in {r["orig_uid"] for r in out}  # a year is no quantity
        assert (
            coverage["skipped"]["the table's title is not its subject's name (a section header such as \"Free agent\")"]
            == 1
        )
        assert (
            coverage["skipped"][
                "no cell holding one quantity (a count or measure: not a date, year, rank or list item)"
            ]
            == 1
        )
        assert coverage["dropped"] == {}


# ---------------------------------------------------------------- their promises catch a wrong example


def _first(name):
    record = run(name, seed=5)[0][0]
    gold = next(r for r in EXAMPLES.to_pylist() if r["uid"] == record["orig_uid"])
    example = Example(gold["uid"], gold["table_id"], gold["hypothesis"], gold["label"])
    provenance = {k: v for k, v in json.loads(record["provenance"]).items() if k != "candidates"}
    out = ProbeExample(record["hypothesis"], Table.from_arrow(record["table"]), record["expected"], provenance)
    return get_probe(name), example, TABLES[record["table_id"]], out


@pytest.mark.parametrize("name", ["num_noise", "num_distribution", "num_logic"])
def test_the_invariants_hold_and_catch_a_wrong_label_or_number(name):
    probe, example, table, out = _first(name)
    promises = invariants.of(probe)
    assert invariants.breaches(promises, example, table, out) == []
    flipped = dataclasses.replace(out, expected={"E": "C", "C": "E"}[out.expected])
    assert "labels the comparison by the table's cell" in {
        b for b, _ in invariants.breaches(promises, example, table, flipped)
    }
    other_number = out.hypothesis.replace(COMPARISON.search(out.hypothesis).group(2), "77", 1)
    moved = dataclasses.replace(out, hypothesis=other_number)
    assert invariants.breaches(promises, example, table, moved)


def test_the_invariants_catch_a_perturbation_that_breaks_its_own_rule():
    probe, example, table, out = _first("num_noise")
    two_digits = dict(out.provenance, value=out.provenance["value"] + 0.05)  # a fraction of two digits
    assert "adds one-digit fractions that keep the comparison" in {
        b
        for b, _ in invariants.breaches(
            invariants.of(probe), example, table, dataclasses.replace(out, provenance=two_digits)
        )
    }
    probe, example, table, out = _first("num_distribution")
    base = dict(out.provenance["base"], number=out.provenance["base"]["number"] + 1)  # two offsets, not one
    assert "moves both numbers by one offset, above 500" in {
        b
        for b, _ in invariants.breaches(
            invariants.of(probe), example, table, dataclasses.replace(out, provenance=dict(out.provenance, base=base))
        )
    }
    probe, example, table, out = _first("num_logic")
    same = dict(out.provenance, base=dict(out.provenance["base"], relation=out.provenance["relation"]))
    assert "changes the operation, keeps the numbers" in {
        b
        for b, _ in invariants.breaches(invariants.of(probe), example, table, dataclasses.replace(out, provenance=same))
    }


def test_the_perturbations_are_deterministic():
    for name in ("num_noise", "num_distribution", "num_logic"):
        first, _ = generate(name, EXAMPLES, TABLES, seed=9)
        second, _ = generate(name, EXAMPLES, TABLES, seed=9)
        assert first.num_rows and first.equals(second)


@pytest.mark.parametrize("name", ["num_comparative", "num_noise", "num_distribution", "num_logic"])
def test_a_bound_is_no_value_to_compare(name):
    # Jenga's "Players: 1 or more" leaves the count open: "less than 3" would be NEUTRAL, not CONTRADICT
    table = Table("T60", "Jenga", (Row("Players", ("1 or more",)), Row("Playing time", ("20 minutes",))), "Game")
    examples = pa.table(
        {
            "uid": [f"dev:{i}" for i in range(2, 22)],
            "table_id": ["T60"] * 20,
            "hypothesis": ["x"] * 20,
            "label": ["N"] * 20,
        },
        schema=schemas.EXAMPLES,
    )
    out, _ = generate(name, examples, {"T60": table}, seed=1)
    assert out.num_rows == 20
    assert {json.loads(p)["key"] for p in out["provenance"].to_pylist()} == {"Playing time"}
