"""tf_entity_rename: one entity renamed consistently in the table and the statement; the gold
label is kept."""

from tf_fixtures import PLAYERS, breaches, reason, run

STATEMENT = "lee park play for the red lions ."


def cells(table) -> list[str]:
    return [cell for record in table.records for cell in record]


def test_renamed_everywhere_to_a_name_of_the_same_column_of_another_table():
    for seed in range(20):
        out = run("tf_entity_rename", STATEMENT, label="C", seed=seed)
        old, new = out.provenance["old"], out.provenance["new"]
        assert out.expected == "C" and breaches("tf_entity_rename", STATEMENT, out, label="C") == []
        assert out.provenance["drawn_from"] == "same-named column"
        assert new in {"ola berg", "kai toivo", "north star", "south wind"}
        assert not any(new in cell for cell in cells(PLAYERS))
        assert out.hypothesis == STATEMENT.replace(old, new)
        if old == "red lions":  # the cells that hold it as whole tokens too, and the caption
            assert cells(out.table).count(f"{new} park") == 2 and out.table.title == f"1990 - 92 {new} season"
            assert out.table.records[0][1] == out.table.records[2][1] == new
        else:
            assert old == "lee park" and out.table.records[2][0] == new and out.table.title == PLAYERS.title
        assert out.table.header == PLAYERS.header and len(out.table.records) == len(PLAYERS.records)


def test_numbers_dates_and_cells_of_columns_that_carry_meaning_are_not_renamed():
    # "2 - 1" (result), "1990" (year) and "forward"-like cells are no names; "bird nest" is a
    # ground, whose header is no names header
    assert reason("tf_entity_rename", "the game in 1990 end 2 - 1 at bird nest .") == (
        "no entity of a names column named in the statement"
    )


def test_deterministic():
    assert run("tf_entity_rename", STATEMENT, seed=5) == run("tf_entity_rename", STATEMENT, seed=5)
