"""tf_hypothesis_only and tf_swapped_table: the statement alone, or with another table of the
split of another header; the gold label is expected."""

from tf_fixtures import PLAYERS, RIVALS, TABLES, breaches, run

from tabprobe.data.relational.table import RelationalTable

STATEMENT = "john smith score 5 goal ."


def test_hypothesis_only_is_an_empty_relational_table_that_round_trips():
    out = run("tf_hypothesis_only", STATEMENT, label="C")
    assert out.hypothesis == STATEMENT and out.expected == "C"
    assert out.table.header == () and out.table.records == () and out.table.title == ""
    assert RelationalTable.from_arrow(out.table.to_arrow()) == out.table
    assert breaches("tf_hypothesis_only", STATEMENT, out, label="C") == []


def test_swapped_table_is_another_table_of_another_header():
    for seed in range(10):
        out = run("tf_swapped_table", STATEMENT, seed=seed)
        # SAME_HEADER is another table but has the gold header: never drawn
        assert out.table == RIVALS and out.provenance == {"premise": "swapped", "from_table": RIVALS.table_id}
        assert out.expected == "E" and breaches("tf_swapped_table", STATEMENT, out) == []
    assert TABLES[PLAYERS.table_id] == PLAYERS
