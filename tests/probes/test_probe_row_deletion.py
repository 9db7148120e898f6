"""row_deletion: one row deleted, the rest kept in order; on the contract test's split
(tests/test_probes.py) and on generated tables."""

import json

from hypothesis import given
from hypothesis import strategies as st
from probe_helpers import common, first_output, split_tables
from test_probes import EXAMPLES, TABLES

from tabprobe.data.infobox.table import Table
from tabprobe.probes.generation import generate


def test_row_deletion_removes_exactly_one_row_and_keeps_the_rest_in_order():
    out, coverage = generate("row_deletion", EXAMPLES, TABLES, seed=3)
    assert coverage["skipped"] == {"table has no rows": 1}
    for record in out.to_pylist():
        before = TABLES[record["table_id"]]
        after = Table.from_arrow(record["table"])
        deleted = json.loads(record["provenance"])["deleted_row"]
        assert len(after.rows) == len(before.rows) - 1
        assert before.rows[deleted["index"]].key == deleted["key"]
        assert after.rows == before.rows[: deleted["index"]] + before.rows[deleted["index"] + 1 :]
        assert (
            record["expected"] is None
            and record["hypothesis"]
            == EXAMPLES["hypothesis"][EXAMPLES["uid"].to_pylist().index(record["orig_uid"])].as_py()
        )


def test_row_deletion_choice_depends_on_the_seed_not_on_other_examples():
    many = [generate("row_deletion", EXAMPLES, TABLES, seed=s)[0] for s in range(12)]
    chosen = {json.loads(t["provenance"][0].as_py())["deleted_row"]["index"] for t in many}
    assert len(chosen) > 1  # different seeds pick different rows
    alone, _ = generate("row_deletion", EXAMPLES.slice(0, 1), TABLES, seed=5)
    together, _ = generate("row_deletion", EXAMPLES, TABLES, seed=5)
    assert alone["provenance"][0] == together["provenance"][0]


@common
@given(split_tables(), st.integers(0, 2**32 - 1))
def test_deletion_removes_exactly_one_row_and_keeps_the_rest_in_order(data, seed):
    table, tables = data
    result = first_output("row_deletion", table, tables, seed)
    if result is None:
        assert not table.rows
        return
    index = result.provenance["deleted_row"]["index"]
    assert result.table.rows == table.rows[:index] + table.rows[index + 1 :]
