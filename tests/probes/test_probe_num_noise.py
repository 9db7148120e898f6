"""num_noise, numerical-qa-robustness's Noise: the cell's measure and the hypothesis's number each
given a one-digit fraction; on tests/test_numeric_perturbations.py's split."""

import json
import re
from decimal import Decimal

from probe_helpers import changed_rows, comparison, gold_value, many
from test_numeric_perturbations import run

from tabprobe.probes.infotabs.numeric.number_templates import RELATIONS, label_for


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
