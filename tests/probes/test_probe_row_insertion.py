"""row_insertion: a row of another table of its category inserted under a key the table lacks;
on generated tables, odd ones included."""

from hypothesis import given
from hypothesis import strategies as st
from probe_helpers import common, first_output, split_tables


@common
@given(split_tables(), st.integers(0, 2**32 - 1))
def test_insertion_adds_one_row_with_a_key_not_present_before(data, seed):
    table, tables = data
    result = first_output("row_insertion", table, tables, seed)
    if result is None:
        return
    inserted = result.provenance["inserted_row"]
    assert len(result.table.rows) == len(table.rows) + 1
    assert inserted["key"].strip().lower() not in {k.strip().lower() for k in table.keys}
    source = tables[inserted["from_table"]]
    assert source.category == table.category is not None and source.table_id != table.table_id
    rest = list(result.table.rows)
    del rest[inserted["index"]]
    assert tuple(rest) == table.rows
