"""row_update: one value of a row changed for one new to the row; on generated tables, odd ones included."""

from hypothesis import given
from hypothesis import strategies as st
from probe_helpers import common, first_output, split_tables


@common
@given(split_tables(), st.integers(0, 2**32 - 1))
def test_update_changes_exactly_one_value_and_keeps_the_key(data, seed):
    table, tables = data
    result = first_output("row_update", table, tables, seed)
    if result is None:
        return
    change = result.provenance["updated_row"]
    before, after = table.rows[change["index"]], result.table.rows[change["index"]]
    assert before.key == after.key and len(before.values) == len(after.values) >= 2
    differing = [j for j, (a, b) in enumerate(zip(before.values, after.values)) if a != b]
    assert differing == [change["value_index"]]
    assert after.values[change["value_index"]] not in before.values
    assert [r for j, r in enumerate(result.table.rows) if j != change["index"]] == [
        r for j, r in enumerate(table.rows) if j != change["index"]
    ]
