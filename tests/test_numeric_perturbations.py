"""The Noise, Distribution and Logic perturbations (numerical-qa-robustness section 4.2) of the
templated comparisons, on hand-written tables: what each must change and must leave alone, and
labels recomputed here, by rule, from the numbers as written in the table and the hypothesis."""

from __future__ import annotations

import dataclasses
import json
import re
from decimal import Decimal

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.perturb import generate
from tabprobe.probes import Example, ProbeExample, get_probe, invariants
from tabprobe.probes.number_templates import RELATIONS, label_for
from tabprobe.table import Row, Table

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


def many(name, seeds=range(25), options=None):
    """Every example the probe writes over many seeds: each relation and label shows up."""
    return [record for seed in seeds for record in run(name, seed, options)[0]]


def value_of(text: str) -> Decimal:
    """A number as the table or the hypothesis writes it ("1,234", "42.7")."""
    return Decimal(text.replace(",", ""))


def comparison(record) -> tuple[str, Decimal, str, Decimal, str]:
    """(key, V as the new table writes it, relation, N, N as written), read off the example itself."""
    provenance = json.loads(record["provenance"])
    row = record["table"]["rows"][provenance["row"]]
    (cell,) = row["values"]
    v = value_of(re.match(NUMBER, cell).group(0))
    relation, digits, decimals = COMPARISON.search(record["hypothesis"]).groups()
    written = digits + (decimals or "")
    return row["key"], v, "less than" if relation == "fewer than" else relation, value_of(written), written


def changed_rows(record) -> list[str]:
    before = TABLES[record["table_id"]].rows
    after = Table.from_arrow(record["table"]).rows
    assert len(before) == len(after)
    return [b.key for b, a in zip(before, after, strict=True) if b != a]


def gold_value(record) -> int:
    provenance = json.loads(record["provenance"])
    return int(TABLES[record["table_id"]].rows[provenance["row"]].values[0].split()[0].replace(",", ""))


@pytest.mark.parametrize(
    "relation,value,n,label",
    [
        ("at least", 42, 42, "E"),  # the boundary: inclusive holds, strict does not
        ("more than", 42, 42, "C"),
        ("at most", 42, 42, "E"),
        ("less than", 42, 42, "C"),
        ("at least", 42, 41, "E"),
        ("at least", 42, 43, "C"),
        ("at most", 42, 43, "E"),
        ("at most", 42, 41, "C"),
        ("more than", Decimal("42.3"), Decimal("41.9"), "E"),
        ("exactly", Decimal("42.3"), Decimal("42.3"), "E"),
        ("exactly", Decimal("42.3"), Decimal("42.4"), "C"),
    ],
)
def test_the_rule_labels_every_operation(relation, value, n, label):
    assert label_for(relation, value, n) == label


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


# ---------------------------------------------------------------- Noise


def test_num_noise_gives_a_measure_and_the_number_a_one_digit_fraction():
    records = many("num_noise")
    assert {r["orig_uid"] for r in records} == {"dev:2", "dev:3", "dev:5"}  # tables with a measure
    for record in records:
        key, v, relation, n, written = comparison(record)
        assert key in ("Length", "Running time")  # never Tributaries, Dams, Children or a year
        assert changed_rows(record) == [key]  # only that cell
        assert v - gold_value(record) in {Decimal(k) / 10 for k in range(1, 10)}
        assert re.fullmatch(r"[\d,]+\.[1-9]", written)  # N has one fractional digit, never .0
        assert record["expected"] == label_for(relation, v, n)
        # the comparison is the integers': the fractions never decide it
        assert record["expected"] == label_for(relation, int(v), int(n))
        cell = record["table"]["rows"][json.loads(record["provenance"])["row"]]["values"][0]
        assert cell.endswith(" km" if key == "Length" else " minutes")
        assert ("," in cell) == (record["table_id"] == "T41")  # grouped as the gold cell was
    relations = {comparison(r)[2] for r in records}
    assert relations == set(RELATIONS)
    assert {r["expected"] for r in records} == {"E", "C"}
    # "exactly V" stays true: the cell and the hypothesis share one fraction
    assert any(comparison(r)[1] == comparison(r)[3] and r["expected"] == "E" for r in records)


def test_num_noise_leaves_counts_alone():
    out, coverage = run("num_noise", seed=4)
    assert "dev:4" not in {r["orig_uid"] for r in out}  # Ada Quill has only a count: "2.3 children"
    assert (
        coverage["skipped"]["no cell holding one measure with its unit (a count takes no fraction: '2.3 children')"]
        == 1
    )


# ---------------------------------------------------------------- Distribution


def test_num_distribution_moves_both_numbers_by_one_offset_above_500():
    records = many("num_distribution")
    assert {r["orig_uid"] for r in records} == {"dev:2", "dev:3", "dev:4", "dev:5"}  # counts too
    for record in records:
        key, v, relation, n, written = comparison(record)
        assert changed_rows(record) == [key]
        k = v - gold_value(record)
        assert k >= 1 and v > 500 and n > 0
        assert record["expected"] == label_for(relation, v, n)
        # the offset is the hypothesis's too: the comparison with the gold value is unchanged
        assert record["expected"] == label_for(relation, gold_value(record), n - k)
        if n >= 1000:
            assert "," in written  # "1,104", never "1104", which reads as a year
    assert {comparison(r)[2] for r in records} == set(RELATIONS)
    assert {r["expected"] for r in records} == {"E", "C"}
    counted = [r for r in records if r["table_id"] == "T42"]
    assert counted and all(
        re.fullmatch(r"Ada Quill has (more than|fewer than|exactly) [\d,]+ children\.", r["hypothesis"])
        for r in counted
    )


def test_num_distribution_options_set_the_offset_and_are_checked():
    out, _ = run("num_distribution", seed=2, options={"mean": 5000, "sd": 0})
    cells = {r["table_id"]: r["table"]["rows"][json.loads(r["provenance"])["row"]]["values"][0] for r in out}
    assert cells["T43"] == "5,126 minutes"  # an sd of 0 adds the mean itself
    assert cells["T42"] == "5,002"
    with pytest.raises(ValueError, match=r"num_distribution\.mean: 400 is less than or equal to the minimum of 500"):
        run("num_distribution", seed=2, options={"mean": 400})
    with pytest.raises(ValueError, match=r"num_distribution\.sd: -1 is less than the minimum of 0"):
        run("num_distribution", seed=2, options={"sd": -1})


# ---------------------------------------------------------------- Logic


def test_num_logic_changes_the_operation_and_keeps_table_and_numbers():
    records = many("num_logic")
    assert {r["orig_uid"] for r in records} == {"dev:2", "dev:3", "dev:4", "dev:5"}
    for record in records:
        provenance = json.loads(record["provenance"])
        assert Table.from_arrow(record["table"]) == TABLES[record["table_id"]]
        key, v, relation, n, _ = comparison(record)
        assert v == gold_value(record)
        assert relation != provenance["base"]["relation"] and relation != "exactly"
        assert record["expected"] == label_for(relation, v, n)
        # the base comparison (num_comparative's) was of the same numbers
        assert provenance["base"]["label"] == label_for(provenance["base"]["relation"], v, n)
    assert {comparison(r)[2] for r in records} == {"more than", "less than", "at least", "at most"}
    # "exactly V" turned into another operation: strict ones are false, inclusive ones true
    boundary = [r for r in records if comparison(r)[1] == comparison(r)[3]]
    assert boundary
    for record in boundary:
        assert record["expected"] == ("E" if comparison(record)[2] in ("at least", "at most") else "C")


def test_num_logic_writes_no_plural_for_one():
    table = Table("T50", "Ola Brin", (Row("Children", ("1",)),), "Person")
    examples = pa.table(
        {
            "uid": [f"dev:{i}" for i in range(2, 40)],
            "table_id": ["T50"] * 38,
            "hypothesis": ["x"] * 38,
            "label": ["N"] * 38,
        },
        schema=schemas.EXAMPLES,
    )
    out, coverage = generate("num_logic", examples, {"T50": table}, seed=3)
    assert out.num_rows > 0 and not [h for h in out["hypothesis"].to_pylist() if re.search(r"\b1 children", h)]
    assert coverage["skipped"] == {
        'no comparison with a quantity of the table reads as English ("1 children")': 38 - out.num_rows
    }


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
