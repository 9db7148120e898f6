"""A served model's unparsed answers (schemas.UNPARSED) in the scores and the report's failing
examples: wrong where a label is expected, no transition either way, counted for every probe of
a served model (unparsed_pct), never read as N."""

from __future__ import annotations

import numpy as np
import pytest
from test_scoring import _by_key, _predictions, _probe_examples

from tabprobe import schemas
from tabprobe.probes import get_probe
from tabprobe.report.failures import find_failures
from tabprobe.scoring.probe_scores import Scorer, ScoringSettings, score_examples, score_transitions

U = schemas.UNPARSED
EXACT = ScoringSettings(samplings=5, fraction=1.0, bootstrap=50, seed=1)


def test_a_pair_with_an_unparsed_side_is_no_transition():
    rule = get_probe("row_deletion").transition_rule
    before = np.array(["E", "E", U, "C", "C", "N", U], dtype=object)
    after = np.array(["C", U, "E", "C", "N", "E", U], dtype=object)
    judged = np.array([U not in pair for pair in zip(before, after)])
    rows = _by_key(score_transitions(before, after, rule, Scorer(len(before), EXACT, "x")))
    alone = _by_key(score_transitions(before[judged], after[judged], rule, Scorer(int(judged.sum()), EXACT, "x")))
    # The statistics are those of the judged pairs alone (E->C and N->E invalid of four).
    assert rows[("invalid_transition_pct", "all")]["mean"] == pytest.approx(50.0)
    for key in [("invalid_transition_pct", lab) for lab in ("all", "E", "N", "C")] + [("unchanged_pct", "all")]:
        assert (rows[key]["mean"], rows[key]["n"]) == (pytest.approx(alone[key]["mean"]), alone[key]["n"]), key


def test_a_classifiers_transitions_are_scored_as_before():
    """Without unparsed answers every pair is judged: the numbers of the unchanged arithmetic."""
    rule = get_probe("row_deletion").transition_rule
    before = np.array(["E", "E", "N", "C", "C", "N"], dtype=object)
    after = np.array(["C", "N", "E", "C", "N", "N"], dtype=object)
    rows = _by_key(score_transitions(before, after, rule, Scorer(6, EXACT, "x")))
    assert rows[("invalid_transition_pct", "all")]["mean"] == pytest.approx(100 * 2 / 6)
    assert rows[("invalid_transition_pct", "all")]["n"] == 6


def test_an_unparsed_answer_is_wrong_and_counted_for_a_served_model():
    uids = [f"alpha1:{i}" for i in range(2, 10)]
    examples = _probe_examples("original", uids, uids, ["E", "N", "C", "E"] * 2, ["E", "N", "C", "E"] * 2)
    predictions = _predictions(uids, uids, ["E", U, "C", U, "E", "N", U, "E"])
    served = _by_key(
        score_examples(
            "original", examples, predictions, None, EXACT, model="m", split="alpha1", served=True
        ).to_pylist()
    )
    assert served[("accuracy", "all")]["mean"] == pytest.approx(100 * 5 / 8)  # "?" is never right
    assert served[("accuracy", "N")]["mean"] == pytest.approx(50.0)  # nor read as NEUTRAL
    assert served[("unparsed_pct", "all")]["mean"] == pytest.approx(100 * 3 / 8)
    assert served[("unparsed_pct", "all")]["n"] == 8
    classifier = score_examples("original", examples, predictions, None, EXACT, model="m", split="alpha1")
    assert "unparsed_pct" not in classifier["statistic"].to_pylist()


def test_a_served_models_probe_without_unparsed_answers_says_zero():
    uids = ["alpha1:2", "alpha1:3"]
    examples = _probe_examples("original", uids, uids, ["E", "C"], ["E", "C"])
    rows = _by_key(
        score_examples(
            "original", examples, _predictions(uids, uids, ["E", "C"]), None, EXACT, "m", "alpha1", served=True
        ).to_pylist()
    )
    assert rows[("unparsed_pct", "all")]["mean"] == 0.0


def test_failing_examples_leave_unparsed_transitions_out_and_name_unparsed_answers():
    deletion = get_probe("row_deletion")
    rows = [{"uid": f"u{i}/rd", "orig_uid": f"u{i}", "label": "E", "expected": None} for i in range(3)]
    found = find_failures(
        deletion, rows, {"u0/rd": U, "u1/rd": "C", "u2/rd": "E"}, {"u0": "E", "u1": U, "u2": "E"}, 5, 0
    )
    assert found.failed == 0  # E -> ? and ? -> C are no transitions; E -> E is allowed
    negation = get_probe("negation_flip")
    rows = [{"uid": "u0/nf", "orig_uid": "u0", "label": "E", "expected": "C"}]
    found = find_failures(negation, rows, {"u0/nf": U}, {"u0": "E"}, 5, 0)
    assert [f.reason for f in found.shown] == [
        "ENTAIL (right) before, no label (unparsed answer) after; expected CONTRADICT"
    ]
