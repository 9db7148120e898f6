"""tf_number_flip: an exact number a cell holds is changed to one its column does not hold;
ENTAILED -> REFUTED."""

from tf_fixtures import PLAYERS, breaches, reason, run

STATEMENT = "john smith score 5 goal in 1990 ."


def test_the_new_number_is_held_by_no_cell_of_the_column_and_a_year_stays_a_year():
    seen = set()
    for seed in range(40):
        out = run("tf_number_flip", STATEMENT, seed=seed)
        assert out.expected == "C" and breaches("tf_number_flip", STATEMENT, out) == []
        old, new = out.provenance["old"], out.provenance["new"]
        column = PLAYERS.column(out.provenance["columns"][0])
        assert all(new not in record[column].split() for record in PLAYERS.records)
        if old == "1990":
            assert out.provenance["year"] and 1986 <= int(new) <= 1994 and new not in ("1991", "1992")
        else:
            assert old == "5" and 1 <= int(new) <= 10 and new not in ("3", "7")
        seen.add(old)
    assert seen == {"5", "1990"}


def test_a_score_a_cell_writes_is_a_number_but_a_range_is_not():
    out = run("tf_number_flip", "john smith 's team win 2 - 1 .")
    assert out.provenance["columns"] == ["result"]
    assert reason("tf_number_flip", "the goal 2 - 5 be all score at home .") == (
        "no number of the statement that a cell holds (or none it may change)"
    )


def test_where_it_does_not_apply():
    assert reason("tf_number_flip", STATEMENT, label="C") == "refuted: a changed number need not make it true"
    assert "comparison" in reason("tf_number_flip", "john smith score more than 3 goal .")
    assert "comparison" in reason("tf_number_flip", "john smith score between 3 and 7 goal .")
    assert "negation" in reason("tf_number_flip", "john smith do not score 7 goal .")
    assert "disjunction" in reason("tf_number_flip", "john smith score 5 or 7 goal .")
    # a prefix's size ("the first 3 player") and "1 of" ("one of") are left
    assert reason("tf_number_flip", "the first 3 player score in 1990 .".replace(" in 1990", "")).startswith(
        "no number"
    )
    assert reason("tf_number_flip", "john smith be 1 of the forward .").startswith("no number")
    assert reason("tf_number_flip", "john smith score 11 goal .").startswith("no number")


def test_deterministic():
    assert run("tf_number_flip", STATEMENT, seed=9) == run("tf_number_flip", STATEMENT, seed=9)
