"""row_deletion_insertion: a row deleted and one under a key new to the table inserted;
on generated tables, odd ones included."""

from hypothesis import given
from hypothesis import strategies as st
from probe_helpers import common, first_output, split_tables


@common
@given(split_tables(), st.integers(0, 2**32 - 1))
def test_deletion_then_insertion_brings_a_key_new_to_the_original(data, seed):
    table, tables = data
    result = first_output("row_deletion_insertion", table, tables, seed)
    if result is None:
        return
    assert len(result.table.rows) == len(table.rows)
    new_key = result.provenance["inserted_row"]["key"].strip().lower()
    assert new_key not in {k.strip().lower() for k in table.keys}
