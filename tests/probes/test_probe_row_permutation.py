"""row_permutation: the rows reordered; on generated tables, odd ones included."""

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st
from probe_helpers import common, first_output, split_tables


@common
@given(split_tables(), st.integers(0, 2**32 - 1))
def test_permutation_keeps_the_multiset_of_rows_and_changes_the_order(data, seed):
    table, tables = data
    result = first_output("row_permutation", table, tables, seed)
    if result is None:
        assert len(table.rows) < 2
        return
    assert Counter(result.table.rows) == Counter(table.rows)
    assert result.provenance["order"] != list(range(len(table.rows)))
