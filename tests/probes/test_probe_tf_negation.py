"""tf_negation: the one "not" of the statement's one verb inserted or removed; ENTAILED <-> REFUTED."""

import pytest
from tf_fixtures import breaches, reason, run


@pytest.mark.parametrize(
    ("statement", "label", "edited"),
    [
        ("john smith be a forward .", "E", "john smith be not a forward ."),
        ("adam jones be a forward .", "C", "adam jones be not a forward ."),
        ("adam jones do not play for the red lions .", "E", "adam jones play for the red lions ."),
        ("john smith be not a defender .", "E", "john smith be a defender ."),
        ("john smith have 5 goal .", "E", "john smith do not have 5 goal ."),
        ("there be 2 forward in 1990 .", "E", "there be not 2 forward in 1990 ."),
        ("in 1990 , john smith can score .", "E", "in 1990 , john smith can not score ."),
    ],
)
def test_the_patterns(statement, label, edited):
    out = run("tf_negation", statement, label=label)
    assert out.hypothesis == edited
    assert out.expected == {"E": "C", "C": "E"}[label]
    assert breaches("tf_negation", statement, out, label=label) == []


@pytest.mark.parametrize(
    ("statement", "label", "why"),
    [
        ("all player be forward .", "E", "quantifier"),
        ("only john smith be a forward .", "E", "quantifier"),
        ("every player be on a team .", "E", "quantifier"),
        ("no player be a goalkeeper .", "C", "negation other than 'not'"),
        ("john smith be not never a forward .", "E", "two negations"),
        ("john smith be a forward and lee park be a forward .", "E", "2 verbs"),
        ("john smith be a forward or a defender .", "E", "disjunction"),
        ("the player that be a goalkeeper score 5 .", "E", "relative"),
        ("2 player be forward .", "E", "counted subject"),
        ("john smith , a forward , be a defender .", "C", "refuted conjunction"),
        ("john smith score 5 goal .", "E", "0 verbs"),
        ("it be .", "E", "ends the statement"),
    ],
)
def test_where_it_does_not_apply(statement, label, why):
    assert why in reason("tf_negation", statement, label=label)


def test_deterministic():
    assert run("tf_negation", "john smith be a forward .", seed=2) == run(
        "tf_negation", "john smith be a forward .", seed=3
    )
