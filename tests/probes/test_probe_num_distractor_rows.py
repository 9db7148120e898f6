"""num_distractor_rows: numeric rows of twin tables inserted under keys the hypothesis does not name;
on tests/test_numeric_probes.py's split."""

import json

import pytest
from probe_helpers import run
from test_numeric_probes import TABLES


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
