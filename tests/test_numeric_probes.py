"""Numeric probes (numerical-qa-robustness section 4.2; diversify-your-datasets section 3) on
hand-written tables and hypotheses."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.perturb import generate
from tabprobe.probes import hypothesis_edits as he
from tabprobe.probes import number_edits as ne
from tabprobe.probes.num_comparative import label_for
from tabprobe.table import Row, Table

TABLES = {
    "T20": Table(
        "T20",
        "Río Verde",
        (
            Row("Length", ("42 km",)),
            Row("Tributaries", ("3",)),
            Row("Source", ("Sierra Alta",)),
            Row("Discovered", ("1979",)),
        ),
        "River",
    ),
    "T21": Table(
        "T21",
        "Río Azul",
        (
            Row("Length", ("1,234 km",)),
            Row("Basin size", ("5,000 km2",)),
            Row("Dams", ("7",)),
            Row("Mouth", ("Lago Sur",)),
        ),
        "River",
    ),
    "T22": Table("T22", "Ada Quill", (Row("Born", ("March 3, 1950",)), Row("Children", ("2",))), "Person"),
    # two rivers of Río Verde's template (mostly its keys), both with dams: its twins
    "T23": Table(
        "T23",
        "Río Seco",
        (Row("Length", ("9 km",)), Row("Tributaries", ("1",)), Row("Source", ("Monte Gris",)), Row("Dams", ("1",))),
        "River",
    ),
    "T24": Table(
        "T24",
        "Río Claro",
        (Row("Length", ("70 km",)), Row("Tributaries", ("5",)), Row("Source", ("Lago Alto",)), Row("Dams", ("2",))),
        "River",
    ),
}
HYPOTHESES = [
    ("T20", "The Río Verde is 42 km long and has 3 tributaries.", "E"),
    ("T20", "The Río Verde was discovered in 1979.", "E"),
    ("T21", "The Río Azul is 1,234 km long.", "E"),
    ("T21", "The Río Azul has 12 dams.", "C"),
    ("T22", "Ada Quill has 2 children.", "E"),
    ("T22", "Ada Quill was a poet.", "N"),
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


def run(name, options=None, seed=3):
    out, coverage = generate(name, EXAMPLES, TABLES, seed=seed, options=options or {})
    return {r["orig_uid"]: r for r in out.to_pylist()}, coverage


def test_only_whole_integers_count_as_numbers():
    text = "1,234 and 3.5 and 46:06 and 2007-2008 and 4x4 and 12, then 7."
    assert [m.group(0) for m in ne.integers(text)] == ["1,234", "12", "7"]


def test_num_words_rewrites_hypothesis_and_table_alike():
    out, coverage = run("num_words")
    first = out["dev:2"]
    assert first["hypothesis"] == "The Río Verde is forty-two km long and has three tributaries."
    cells = {r["key"]: r["values"] for r in first["table"]["rows"]}
    assert cells["Length"] == ["forty-two km"] and cells["Tributaries"] == ["three"]
    assert cells["Discovered"] == ["1979"]  # not mentioned in this hypothesis: untouched
    assert out["dev:3"]["hypothesis"] == "The Río Verde was discovered in nineteen seventy-nine."
    assert out["dev:4"]["hypothesis"] == "The Río Azul is one thousand, two hundred and thirty-four km long."
    assert coverage["skipped"] == {"no integer in the hypothesis that stands as a number everywhere it occurs": 1}
    for record in out.values():
        assert record["expected"] == record["label"]
        provenance = json.loads(record["provenance"])
        original = dict(zip(EXAMPLES["uid"].to_pylist(), EXAMPLES["hypothesis"].to_pylist()))[record["orig_uid"]]
        assert he.apply_changes(original, provenance["changes"]) == record["hypothesis"]


def test_num_decimal_leaves_years_alone():
    out, coverage = run("num_decimal")
    assert out["dev:2"]["hypothesis"] == "The Río Verde is 42.0 km long and has 3.0 tributaries."
    assert {r["key"]: r["values"] for r in out["dev:2"]["table"]["rows"]}["Length"] == ["42.0 km"]
    assert out["dev:4"]["hypothesis"] == "The Río Azul is 1,234.0 km long."
    assert "dev:3" not in out  # only a year
    assert (
        coverage["skipped"]["no integer (other than a year) in the hypothesis that stands as a number everywhere"] == 2
    )


def test_num_verbosity_adds_an_explicitly_irrelevant_number_to_the_cell():
    out, coverage = run("num_verbosity")
    record = out["dev:6"]  # "Ada Quill has 2 children."
    assert record["hypothesis"] == "Ada Quill has 2 children."
    provenance = json.loads(record["provenance"])
    other = provenance["distractor"]
    assert other > 0 and other != 2
    assert {r["key"]: r["values"] for r in record["table"]["rows"]}["Children"] == [f"2 (not {other})"]
    assert "dev:5" not in out  # 12 dams: not in the table


def test_num_distractor_rows_insert_numeric_rows_under_unmentioned_new_keys():
    out, coverage = run("num_distractor_rows", {"rows": 2})
    record = out["dev:2"]  # Río Verde borrows from its twins (same category, mostly the same keys)
    inserted = json.loads(record["provenance"])["inserted_rows"]
    own_keys = {k.lower() for k in TABLES["T20"].keys}
    # the one numeric key two twins have that Río Verde lacks: never Río Azul's (another template)
    assert len(inserted) == 1 and inserted[0]["key"] == "Dams"
    for row in inserted:
        assert row["from_table"] in ("T23", "T24") and row["key"].lower() not in own_keys
        assert row["key"].lower() not in record["hypothesis"].lower()
        assert any(ch.isdigit() for v in row["values"] for ch in v)
    assert len(record["table"]["rows"]) == len(TABLES["T20"].rows) + len(inserted)
    with pytest.raises(ValueError, match="num_distractor_rows.rows: 0 is less than the minimum of 1"):
        run("num_distractor_rows", {"rows": 0})


@pytest.mark.parametrize(
    "relation,value,n,label",
    [
        ("more than", 42, 40, "E"),
        ("more than", 42, 42, "C"),
        ("more than", 42, 50, "C"),
        ("less than", 42, 50, "E"),
        ("less than", 42, 42, "C"),
        ("less than", 42, 30, "C"),
        ("exactly", 42, 42, "E"),
        ("exactly", 42, 41, "C"),
    ],
)
def test_comparative_labels_follow_the_rule_table(relation, value, n, label):
    assert label_for(relation, value, n) == label


def test_num_comparative_templates_and_labels():
    out, coverage = run("num_comparative")
    # every table has a numeric cell; a count of one would read "has exactly 1 children"
    english = 'no comparison with a quantity of the table reads as English ("1 children")'
    assert coverage["perturbed"] + coverage["skipped"].get(english, 0) == EXAMPLES.num_rows
    assert not [r for r in out.values() if re.search(r"\b1 children\b", r["hypothesis"])]
    for record in out.values():
        provenance = json.loads(record["provenance"])
        unit = {"Length": " km", "Basin size": " km2"}.get(provenance["key"], "")
        title, key = TABLES[record["table_id"]].title, provenance["key"].lower()
        counted = {"more than": "more than", "less than": "fewer than", "exactly": "exactly"}[provenance["relation"]]
        cell = record["table"]["rows"][provenance["row"]]["values"][0]
        number = f"{provenance['number']:,}" if "," in cell else str(provenance["number"])  # grouped like the cell
        assert record["hypothesis"] in (
            f"The {key} of {title} is {provenance['relation']} {number}{unit}.",
            f"{title} has {counted} {number} {key}.",
        )  # a counted plural
        assert (record["hypothesis"].startswith(title)) == (key in ("tributaries", "dams", "children"))
        assert record["expected"] == label_for(provenance["relation"], provenance["value"], provenance["number"])
        assert Table.from_arrow(record["table"]) == TABLES[record["table_id"]]  # no range: the table is kept


def test_num_comparative_range_draws_both_numbers_from_it():
    out, _ = run("num_comparative", {"range": [30, 49]})
    for record in out.values():
        provenance = json.loads(record["provenance"])
        assert 30 <= provenance["value"] <= 49 and 30 <= provenance["number"] <= 49
        row = record["table"]["rows"][provenance["row"]]
        assert row["values"][0].split()[0] == str(provenance["value"])  # the cell says the drawn value
    with pytest.raises(ValueError, match=r"num_comparative\.range: \[50, 10\] is not \[low, high\] with low < high"):
        run("num_comparative", {"range": [50, 10]})


def test_numeric_probes_are_deterministic():
    for name in ("num_words", "num_decimal", "num_verbosity", "num_distractor_rows", "num_comparative"):
        first, _ = generate(name, EXAMPLES, TABLES, seed=9)
        second, _ = generate(name, EXAMPLES, TABLES, seed=9)
        assert first.equals(second)


def test_quantity_cells_skip_years_dates_list_items_identifiers_and_names():
    table = Table(
        "T",
        "x",
        (
            Row("Founded", ("1979",)),
            Row("Area", ("12 km2",)),
            Row("Span", ("2007 - 2008",)),
            Row("Establishment", ("4 February 266",)),
            Row("Labels", ("19", "RCA")),
            Row("Number", ("23",)),
            Row("Sire", ("240 Sky King",)),
            Row("Metro", ("4,597,134",)),
            Row("No. of episodes", ("120",)),
            Row("First unification", ("221 BCE",)),
            Row("Running time", ("125 minutes",)),
        ),
    )
    assert ne.quantity_cells(table) == [(1, 0, 12, "km2"), (8, 0, 120, ""), (10, 0, 125, "minutes")]


@pytest.mark.parametrize(
    "text, numbers",
    [
        ("Atari 2600 sold 30 million units.", ["30"]),  # a number in a name is no quantity
        ("Despicable Me 3 made $1,034 million.", []),  # nor one glued to a currency sign
        ("It was released on June 21, 1999.", ["1999"]),  # the day of a date is not a number
        ("It was born on 21 June 1999.", ["1999"]),
        ("They were big in the 1970's and 1980s.", []),  # decades
        ("In 1990 it had 50% of the market.", ["1990"]),  # a sentence's first word is no name
    ],
)
def test_quantities_are_numbers_that_stand_as_numbers(text, numbers):
    assert [m.group(0) for m in ne.quantities(text)] == numbers


def test_num_words_leaves_a_number_alone_where_the_table_cannot_follow():
    table = Table("T30", "Ada Quill", (Row("Years active", ("1999–present",)), Row("Children", ("2",))), "Person")
    examples = pa.table(
        {
            "uid": ["dev:2", "dev:3"],
            "table_id": ["T30", "T30"],
            "hypothesis": ["Ada Quill has been active since 1999.", "Ada Quill has 2 children."],
            "label": ["E", "E"],
        },
        schema=schemas.EXAMPLES,
    )
    out, coverage = generate("num_words", examples, {"T30": table}, seed=1)
    # 1999 stands in "1999–present", which the rewrite cannot reach: the evidence would stay in
    # digits while the hypothesis said "nineteen ninety-nine"
    assert out["orig_uid"].to_pylist() == ["dev:3"]
    assert out["hypothesis"].to_pylist() == ["Ada Quill has two children."]
