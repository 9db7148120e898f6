"""tf_entity_flip: an entity tied to another cell of its record is swapped for a value of its
column whose records lack that cell; ENTAILED -> REFUTED."""

from tf_fixtures import INFOBOX, breaches, example, reason, run

from tabprobe.probes import ProbeContext, get_probe
from tabprobe.seeding import seeded_rng

STATEMENT = "john smith score 5 goal for the red lions ."


def test_the_only_sound_swap_is_a_player_whose_record_lacks_the_tied_cells():
    out = run("tf_entity_flip", STATEMENT)
    # lee park plays for the red lions, mark lee scored 5: only adam jones makes it false
    assert out.hypothesis == "adam jones score 5 goal for the red lions ."
    assert out.expected == "C" and out.table is not None
    assert out.provenance["column"] == "player" and out.provenance["tied_cells"] == ["5", "red lions"]
    assert out.provenance["records_of_new"] == [1]
    assert breaches("tf_entity_flip", STATEMENT, out) == []


def test_either_side_of_a_tie_may_be_swapped_but_never_to_a_record_that_holds_the_other():
    made = {run("tf_entity_flip", "lee park play for the red lions .", seed=seed).hypothesis for seed in range(30)}
    assert made == {
        "adam jones play for the red lions .",
        "mark lee play for the red lions .",
        "lee park play for the blue birds .",
        "lee park play for the green town .",
    }  # never john smith: he plays for the red lions too


def test_where_it_does_not_apply():
    assert reason("tf_entity_flip", STATEMENT, label="C") == "refuted: a swap need not make it true"
    assert "negation" in reason("tf_entity_flip", "john smith do not play for the blue birds .")
    assert "disjunction" in reason("tf_entity_flip", "john smith or adam jones score 5 goal .")
    assert reason("tf_entity_flip", "john smith be a fine player .") == (
        "no other cell of the entity's record named in the statement"
    )
    assert reason("tf_entity_flip", "the weather be fine in march .") == "no entity of the table named in the statement"
    # "red lions" inside the longer mention "red lions park" is no mention of its own, and the
    # ground is tied to nothing else the statement names
    assert reason("tf_entity_flip", "the red lions park be home to 2 player .") == (
        "no other cell of the entity's record named in the statement"
    )


def test_a_tie_another_record_of_a_third_mention_holds_is_no_tie():
    # "5" is john smith's and mark lee's: "mark lee score 5 , as do john smith" cannot say whose
    why = reason("tf_entity_flip", "mark lee and john smith score 5 goal each .")
    assert why == "no other cell of the entity's record named in the statement"


def test_deterministic_and_not_for_infobox_tables():
    first = run("tf_entity_flip", "john smith play for the red lions in 1990 .", seed=4)
    again = run("tf_entity_flip", "john smith play for the red lions in 1990 .", seed=4)
    assert first == again
    ctx = ProbeContext(rng=seeded_rng(1, "tf_entity_flip"), tables={})
    try:
        get_probe("tf_entity_flip").apply(example(STATEMENT), INFOBOX, None, ctx)
    except Exception as why:  # NotApplicable
        assert "not a TabFact table" in str(why)
    assert get_probe("tf_entity_flip").datasets == ("tabfact",)


def test_no_swap_to_a_value_held_by_as_many_records_as_a_count_of_the_statement():
    # "1 of ..." may count the new value's records: every value is held by at least one record
    assert reason("tf_entity_flip", "john smith be 1 of the red lions player .") == (
        "no other value of the column whose records lack the tied cells"
    )
