"""num_comparative: templated comparisons with a number of the table, labelled by rule; on
tests/test_numeric_probes.py's split."""

import json
import re

import pytest
from probe_helpers import run
from test_numeric_probes import EXAMPLES, TABLES

from tabprobe.data.infobox.table import Table
from tabprobe.probes.infotabs.numeric.num_comparative import label_for


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
