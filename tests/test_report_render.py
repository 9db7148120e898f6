"""The report's building blocks rendered to HTML and Markdown, and the summary chart."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.diff import example_changes
from tabprobe.report import figures
from tabprobe.report.blocks import ExamplesBlock, Figure, Section, Stat, TableBlock
from tabprobe.report.failures import Failures
from tabprobe.report.render import to_html, to_markdown

SCORE = {"mean": 54.8312, "std": 1.2049, "ci_low": 52.11, "ci_high": 57.32, "n": 1000}


def test_a_score_carries_its_n_and_interval_and_the_paper_value():
    assert Stat.of(SCORE, paper=74.88).text() == "54.83 (1.20) [52.1, 57.3] n=1000 · paper 74.88"
    assert (
        Stat.of({**SCORE, "mean": 2.5, "ci_low": -1.0, "ci_high": 6.0}, signed=True).text()
        == "+2.50 (1.20) [-1.0, +6.0] n=1000"
    )
    assert Stat.of(None).text() == "–"
    assert Stat.of({"mean": None, "std": None, "ci_low": None, "ci_high": None, "n": 0}).text() == "– n=0"
    assert Stat.reference((68.94, 0.76)).text() == "68.94 (0.76)"


def sections():
    before = Table("T1", "Fearless", (Row("Length", ("53:33",)), Row("Label", ("Big Machine",))))
    after = before.with_rows(before.rows[1:])
    row = {
        "uid": "alpha1:5/row_deletion",
        "orig_uid": "alpha1:5",
        "table_id": "T1",
        "hypothesis": "Fearless is long.",
        "label": "E",
        "probe": "row_deletion",
        "table": after.to_arrow(),
        "expected": None,
        "provenance": "{}",
    }
    changes = example_changes(
        [row],
        {"alpha1:5": {"table_id": "T1", "hypothesis": "Fearless is very long."}},
        {"T1": before},
        {row["uid"]: "C"},
        {"alpha1:5": "E"},
    )
    return [
        Section("Part one", ["Intro with `code`."]),
        Section(
            "Numbers",
            [
                TableBlock(
                    ["Model", "alpha1"],
                    [["m", Stat.of(SCORE, paper=74.88)], ["paper: x", Stat(70.0)]],
                    caption="Accuracy",
                )
            ],
            level=3,
        ),
        Section(
            "Examples",
            [ExamplesBlock("row_deletion", "m", "alpha1", Failures("moved badly", [], 1, 10), changes)],
            level=3,
        ),
    ]


def test_html_is_one_self_contained_page_with_sortable_tables_and_marked_changes():
    page = to_html(sections(), "Title", "Lede.")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)  # nothing fetched
    assert '<table class="sortable">' in page and '<button type="button" class="sort">alpha1</button>' in page
    assert (
        '<td data-sort="54.8312"><span class="v">54.83</span>' in page
        and '<span class="paper">paper 74.88</span>' in page
    )
    assert "<tr class='reference'>" in page  # the paper's rows stand out
    assert '<tr class="row-deleted"><td class="mark">−</td><th>Length</th>' in page
    assert "Fearless is <del>very </del>long." in page
    assert '<nav class="toc"' in page and 'href="#numbers"' in page and '<section id="numbers"><h3>' in page
    assert page.count("<section") == page.count("</section>")


def test_markdown_says_the_same_in_text():
    markdown = to_markdown(sections(), "Title", "Lede.")
    assert "| m | 54.83 (1.20) [52.1, 57.3] n=1000 · paper 74.88 |" in markdown
    assert "## Part one" in markdown and "### Numbers" in markdown
    assert "Hypothesis: Fearless is ~~very~~ long." in markdown
    assert "− Length: 53:33" in markdown and "1 of 10 (10.0%); 1 shown" in markdown


def test_figures_are_inline_svg_with_a_caption():
    page = to_html(
        [
            Section(
                "F", [Figure("<svg xmlns='http://www.w3.org/2000/svg'></svg>", "A caption", "summary/m/all-probes.svg")]
            )
        ],
        "T",
        "L",
    )
    assert "<figure><svg" in page and "<figcaption>A caption</figcaption>" in page
    assert "results/report/figures/summary/m/all-probes.svg" in to_markdown(
        [Section("F", [Figure("<svg/>", "A caption", "summary/m/all-probes.svg")])], "T", "L"
    )


def chart(salt):
    points = [
        figures.ChartPoint("Annotation artifacts", "negation_flip", 12.5, 8.0, 17.0, 610),
        figures.ChartPoint("Annotation artifacts", "number_flip", None, None, None, 0),
        figures.ChartPoint("Numeric probes", "num_words", -1.0, -3.0, 1.5, 181),
    ]
    return figures.dot_chart(
        [figures.ChartPanel("Accuracy drop (points)", points, zero_line=True)], "m: accuracy", salt=salt
    )


def test_the_summary_chart_is_deterministic_text_svg_with_ids_unique_per_figure():
    svg = chart("summary-m")
    assert svg == chart("summary-m") and svg.startswith("<svg ")
    root = ET.fromstring(svg)
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for label in ("negation_flip  (n=610)", "number_flip  (n=0)", "Numeric probes", "Accuracy drop (points)"):
        assert label in texts  # real text, readable, searchable and printable
    ids = set(re.findall(r'id="([^"]+)"', svg))
    assert ids and not ids & set(re.findall(r'id="([^"]+)"', chart("summary-other")))
