"""num_distribution, numerical-qa-robustness's Distribution: both numbers moved by one offset above
500; on tests/test_numeric_perturbations.py's split."""

import json
import re

import pytest
from probe_helpers import changed_rows, comparison, gold_value, many
from test_numeric_perturbations import run

from tabprobe.probes.infotabs.numeric.number_templates import RELATIONS, label_for


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
