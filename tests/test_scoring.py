import numpy as np
import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.probes import get_probe
from tabprobe.scoring.probe_scores import (
    Scorer,
    ScoringSettings,
    score_examples,
    score_expected,
    score_transitions,
    subsample_weights,
)
from tabprobe.seeding import seeded_rng


def _by_key(rows):
    return {(r["statistic"], r["label"]): r for r in rows}


def test_subsamples_take_eighty_percent_without_replacement():
    w = subsample_weights(50, 100, 0.8, seeded_rng(0, "t"))
    assert w.shape == (100, 50)
    assert set(np.unique(w)) == {0.0, 1.0}
    assert (w.sum(axis=1) == 40).all()
    assert len({tuple(row) for row in w}) == 100  # the samplings differ


def test_transition_statistics_are_exact_on_the_full_set():
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=50, seed=1)
    before = np.array(["E", "E", "N", "C", "C", "N"], dtype=object)
    after = np.array(["C", "N", "E", "C", "N", "N"], dtype=object)
    rows = _by_key(
        score_transitions(before, after, get_probe("row_deletion").transition_rule, Scorer(6, settings, "x"))
    )
    assert rows[("invalid_transition_pct", "E")]["mean"] == pytest.approx(50.0)  # E->C invalid, E->N valid
    assert rows[("invalid_transition_pct", "N")]["mean"] == pytest.approx(50.0)  # N->E invalid, N->N valid
    assert rows[("invalid_transition_pct", "C")]["mean"] == pytest.approx(0.0)
    assert rows[("invalid_transition_pct", "all")]["mean"] == pytest.approx(100 * 2 / 6)
    assert rows[("invalid_transition_pct", "E")]["std"] == pytest.approx(0.0)
    assert rows[("invalid_transition_pct", "E")]["n"] == 2
    assert rows[("transition_pct_to_N", "C")]["mean"] == pytest.approx(50.0)
    assert rows[("unchanged_pct", "all")]["mean"] == pytest.approx(100 * 2 / 6)
    for lab in "ENC":  # each row of the transition matrix sums to 100
        assert sum(rows[(f"transition_pct_to_{to}", lab)]["mean"] for to in "ENC") == pytest.approx(100.0)


def test_accuracy_by_the_paper_protocol_and_bootstrap_interval():
    rng = np.random.default_rng(0)
    n = 2000
    expected = rng.choice(np.array(["E", "N", "C"], dtype=object), n)
    pred = np.where(rng.random(n) < 0.7, expected, "N").astype(object)
    true_acc = 100 * np.mean(pred == expected)
    rows = _by_key(score_expected(expected, pred, Scorer(n, ScoringSettings(seed=3), "acc")))
    acc = rows[("accuracy", "all")]
    assert acc["n"] == n
    assert acc["mean"] == pytest.approx(true_acc, abs=0.3)
    # std of an 80% subsample mean: sqrt(p(1-p)/m * (1 - m/n)), about 0.5 points here
    assert 0.3 < acc["std"] < 0.8
    assert acc["ci_low"] < true_acc < acc["ci_high"]
    assert 2.5 < acc["ci_high"] - acc["ci_low"] < 5.5
    assert rows[("accuracy", "N")]["mean"] == pytest.approx(100.0)  # every N example predicted N


def test_a_label_nobody_predicted_has_no_value_not_a_crash():
    settings = ScoringSettings(samplings=3, fraction=0.8, bootstrap=20)
    rows = _by_key(
        score_transitions(
            np.array(["E", "E"], dtype=object),
            np.array(["E", "N"], dtype=object),
            get_probe("row_deletion").transition_rule,
            Scorer(2, settings),
        )
    )
    assert rows[("invalid_transition_pct", "C")]["mean"] is None and rows[("invalid_transition_pct", "C")]["n"] == 0


def _predictions(uids, orig, preds, digests=None):
    return pa.table(
        {
            "uid": uids,
            "orig_uid": orig,
            "pred": preds,
            "probs": [[1.0, 0.0, 0.0]] * len(uids),
            "model_fingerprint": ["f"] * len(uids),
            "input_digest": digests or list(uids),
        },
        schema=schemas.PREDICTIONS,
    )


def _probe_examples(probe, uids, orig, labels, expected):
    table = {"table_id": "T1", "title": "t", "rows": [], "category": None}
    return pa.table(
        {
            "uid": uids,
            "orig_uid": orig,
            "table_id": ["T1"] * len(uids),
            "hypothesis": ["h"] * len(uids),
            "label": labels,
            "probe": [probe] * len(uids),
            "table": [table] * len(uids),
            "expected": expected,
            "provenance": ["{}"] * len(uids),
        },
        schema=infobox.PROBE_EXAMPLES,
    )


def test_score_probe_joins_on_orig_uid_and_is_deterministic():
    orig_uids = [f"dev:{i}" for i in range(2, 12)]
    probe_uids = [u + "/row_deletion" for u in orig_uids]
    original = _predictions(orig_uids, orig_uids, ["E"] * 5 + ["C"] * 5)
    probed = _predictions(probe_uids[::-1], orig_uids[::-1], ["C"] * 5 + ["C"] * 5)  # order must not matter
    examples = _probe_examples("row_deletion", probe_uids, orig_uids, ["E"] * 10, [None] * 10)
    settings = ScoringSettings(samplings=10, fraction=1.0, bootstrap=20, seed=1)
    table = score_examples("row_deletion", examples, probed, original, settings, model="m", split="dev")
    assert table.schema.equals(schemas.SCORES)
    rows = _by_key(table.to_pylist())
    assert rows[("invalid_transition_pct", "E")]["mean"] == pytest.approx(100.0)  # E -> C is invalid
    assert rows[("invalid_transition_pct", "C")]["mean"] == pytest.approx(0.0)
    assert table.equals(score_examples("row_deletion", examples, probed, original, settings, model="m", split="dev"))


def test_missing_predictions_are_an_error():
    uids = ["dev:2", "dev:3"]
    examples = _probe_examples("original", uids, uids, ["E", "N"], ["E", "N"])
    with pytest.raises(ValueError, match="no prediction"):
        score_examples(
            "original", examples, _predictions(uids[:1], uids[:1], ["E"]), None, ScoringSettings(), "m", "dev"
        )


def test_a_label_in_too_few_samplings_gets_nulls_not_nan():
    settings = ScoringSettings(samplings=2, fraction=0.1, bootstrap=20, seed=0)
    before = np.array(["E"] * 19 + ["C"], dtype=object)
    rows = _by_key(
        score_transitions(before, before.copy(), get_probe("row_deletion").transition_rule, Scorer(20, settings))
    )
    rare = rows[("invalid_transition_pct", "C")]
    assert rare["n"] == 1
    assert rare["mean"] is None or not np.isnan(rare["mean"])
    assert rare["std"] is None or rare["std"] >= 0


def test_invalid_share_over_visible_perturbations_leaves_out_inputs_the_model_saw_unchanged():
    # Ten E predictions; rows were deleted in all ten, but for four of them the deleted row lay
    # past the max_length cut, so the model saw its original input (same digest) and kept E.
    # Of the six it could see, three went E -> C (invalid): 30% over all, 50% over the visible.
    orig_uids = [f"dev:{i}" for i in range(10)]
    probe_uids = [u + "/row_deletion" for u in orig_uids]
    original = _predictions(orig_uids, orig_uids, ["E"] * 10, digests=[f"d{i}" for i in range(10)])
    seen = [f"d{i}" if i < 4 else f"x{i}" for i in range(10)]
    probed = _predictions(probe_uids, orig_uids, ["E"] * 4 + ["C"] * 3 + ["N"] * 3, digests=seen)
    examples = _probe_examples("row_deletion", probe_uids, orig_uids, ["E"] * 10, [None] * 10)
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=20, seed=1)
    rows = _by_key(
        score_examples("row_deletion", examples, probed, original, settings, model="m", split="dev").to_pylist()
    )
    assert rows[("invalid_transition_pct", "E")]["mean"] == pytest.approx(30.0)
    assert rows[("input_changed_pct", "all")]["mean"] == pytest.approx(60.0)
    visible = rows[("invalid_transition_pct_input_changed", "E")]
    assert visible["mean"] == pytest.approx(50.0) and visible["n"] == 6
    assert rows[("invalid_transition_pct_input_changed", "C")]["n"] == 0


def test_a_probe_example_without_its_original_prediction_is_an_error():
    examples = _probe_examples("row_deletion", ["dev:2/row_deletion"], ["dev:2"], ["E"], [None])
    probed = _predictions(["dev:2/row_deletion"], ["dev:2"], ["E"])
    original = _predictions(["dev:3"], ["dev:3"], ["E"])
    with pytest.raises(ValueError, match="no original prediction"):
        score_examples("row_deletion", examples, probed, original, ScoringSettings(), "m", "dev")


def test_table4_column_pools_one_example_per_gold_example_and_pairs_the_drop():
    from tabprobe.scoring.pooled_columns import score_pooled_examples

    gold = [f"dev:{i}" for i in range(20)]
    labels = ["E", "C"] * 10
    # Two probes of the "flipped" column; the first edits every gold example, the second the
    # ENTAIL half (as entity_flip does).
    negation = _probe_examples(
        "negation_flip",
        [u + "/negation_flip" for u in gold],
        gold,
        labels,
        ["C" if lab == "E" else "E" for lab in labels],
    )
    half = gold[0::2]
    entity = _probe_examples("entity_flip", [u + "/entity_flip" for u in half], half, ["E"] * 10, ["C"] * 10)
    # The model keeps its (correct) original answer whatever the edit: right before, wrong after.
    members = {
        "negation_flip": (negation, _predictions(negation["uid"].to_pylist(), gold, labels)),
        "entity_flip": (entity, _predictions(entity["uid"].to_pylist(), half, ["E"] * 10)),
    }
    original = _predictions(gold, gold, labels)
    settings = ScoringSettings(samplings=20, fraction=0.8, bootstrap=50, seed=4)
    table = score_pooled_examples("table4", "label_flipped", members, original, settings, model="m", split="alpha1")
    rows = _by_key(table.to_pylist())
    accuracy = rows[("accuracy", "all")]
    assert accuracy["n"] == 20  # one per gold example, not 30
    # entity_flip on an E example expects C, the model says E: wrong. negation_flip: always wrong.
    assert accuracy["mean"] == pytest.approx(0.0)
    assert rows[("original_accuracy", "all")]["mean"] == pytest.approx(100.0)
    assert rows[("accuracy_drop", "all")]["mean"] == pytest.approx(100.0)
    assert rows[("accuracy_drop", "all")]["ci_low"] == pytest.approx(100.0)  # paired: no sampling noise
    assert set(table["probe"].to_pylist()) == {"table4:label_flipped"}
    assert table.equals(
        score_pooled_examples("table4", "label_flipped", members, original, settings, model="m", split="alpha1")
    )


def test_table4_pooling_draws_from_every_member_and_depends_only_on_the_gold_uid():
    from tabprobe.scoring.pooled_columns import pool_one_per_gold

    gold = [f"dev:{i}" for i in range(200)]
    a = _probe_examples("number_preserve", [u + "/a" for u in gold], gold, ["E"] * 200, ["E"] * 200)
    b = _probe_examples("modifier_preserve", [u + "/b" for u in gold], gold, ["E"] * 200, ["E"] * 200)
    chosen = pool_one_per_gold({"number_preserve": a, "modifier_preserve": b}, 1, "label_preserved", "alpha1")
    assert sorted(r["orig_uid"] for _, r in chosen) == sorted(gold)
    picked = [p for p, _ in chosen]
    assert 70 < picked.count("number_preserve") < 130  # a fair draw between the two
    # Dropping half the gold examples does not change the draw for the others.
    fewer = pool_one_per_gold(
        {"number_preserve": a.slice(0, 100), "modifier_preserve": b.slice(0, 100)}, 1, "label_preserved", "alpha1"
    )
    assert fewer == [c for c in chosen if c[1]["orig_uid"] in set(gold[:100])]


def test_accuracy_without_neutral_counts_only_E_and_C():
    expected = np.array(["E", "C", "N", "N"], dtype=object)
    pred = np.array(["E", "E", "N", "N"], dtype=object)
    rows = _by_key(score_expected(expected, pred, Scorer(4, ScoringSettings(samplings=5, fraction=1.0, bootstrap=20))))
    assert rows[("accuracy", "EC")]["mean"] == pytest.approx(50.0) and rows[("accuracy", "EC")]["n"] == 2
    assert rows[("accuracy", "all")]["mean"] == pytest.approx(75.0)


def test_an_expected_label_probe_gets_the_paired_drop_from_its_unperturbed_examples():
    gold = [f"alpha1:{i}" for i in range(10)]
    labels = ["E"] * 5 + ["C"] * 5
    probe_uids = [u + "/dummy_premise" for u in gold]
    examples = _probe_examples("dummy_premise", probe_uids, gold, labels, labels)
    # Right on all ten before; with the dummy premise, right only on the first three.
    original = _predictions(gold + ["alpha1:99"], gold + ["alpha1:99"], labels + ["N"])
    # Half of the edits never reached the model (same input digest as the original's).
    probed = _predictions(probe_uids, gold, labels[:3] + ["N"] * 7, digests=gold[:5] + probe_uids[5:])
    settings = ScoringSettings(samplings=10, fraction=0.8, bootstrap=50, seed=2)
    rows = _by_key(score_examples("dummy_premise", examples, probed, original, settings, "m", "alpha1").to_pylist())
    assert rows[("accuracy", "all")]["mean"] == pytest.approx(30.0, abs=10)
    assert rows[("original_accuracy", "all")]["mean"] == pytest.approx(100.0)
    drop = rows[("accuracy_drop", "all")]
    assert drop["n"] == 10 and drop["mean"] == pytest.approx(100.0 - rows[("accuracy", "all")]["mean"])
    assert rows[("input_changed_pct", "all")]["mean"] == pytest.approx(50.0, abs=10)
    assert rows[("input_changed_pct", "all")]["n"] == 10
    # without the original predictions: accuracy only
    alone = _by_key(score_examples("dummy_premise", examples, probed, None, settings, "m", "alpha1").to_pylist())
    assert ("accuracy_drop", "all") not in alone and alone[("accuracy", "all")] == rows[("accuracy", "all")]
    with pytest.raises(ValueError, match="no original prediction"):
        score_examples("dummy_premise", examples, probed, original.slice(0, 5), settings, "m", "alpha1")


def test_staying_put_where_the_rule_demands_a_move_is_counted_apart():
    """Relevant rows deleted: ENTAIL and CONTRADICT must become NEUTRAL, so a prediction that stays
    is the failure (and what a model that ignores its table always does)."""
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=50, seed=1)
    before = np.array(["E", "E", "C", "C", "N", "N"], dtype=object)
    after = np.array(["E", "N", "C", "C", "N", "E"], dtype=object)
    rows = _by_key(
        score_transitions(before, after, get_probe("relevant_row_deletion").transition_rule, Scorer(6, settings, "x"))
    )
    required = rows[("unchanged_where_required_pct", "all")]
    assert required["n"] == 4 and required["mean"] == pytest.approx(75.0)  # E stayed once, C twice, of 4
    assert rows[("unchanged_pct", "E")]["mean"] == pytest.approx(50.0)
    assert rows[("unchanged_pct", "N")]["mean"] == pytest.approx(50.0)
    # A rule that never demands a move (row deletion: E may stay E) has no such statistic.
    plain = _by_key(
        score_transitions(before, after, get_probe("row_deletion").transition_rule, Scorer(6, settings, "x"))
    )
    assert ("unchanged_where_required_pct", "all") not in plain


def test_a_premise_model_is_paired_with_the_hypothesis_only_baseline_on_the_same_examples():
    gold = [f"alpha1:{i}" for i in range(10)]
    labels = ["E"] * 5 + ["C"] * 5
    examples = _probe_examples("original", gold, gold, labels, labels)
    model = _predictions(gold, gold, labels[:8] + ["N", "N"])  # 8 of 10 right
    baseline = _predictions(gold[:9], gold[:9], labels[:4] + ["N"] * 5)  # 4 right; no prediction on the last
    settings = ScoringSettings(samplings=10, fraction=1.0, bootstrap=50, seed=3)
    rows = _by_key(
        score_examples(
            "original", examples, model, None, settings, "m", "alpha1", baseline_predictions=baseline
        ).to_pylist()
    )
    gain = rows[("accuracy_gain_over_baseline", "all")]
    assert gain["n"] == 9 and gain["mean"] == pytest.approx(100 * (8 - 4) / 9)  # on the 9 shared examples
    assert gain["ci_low"] <= gain["mean"] <= gain["ci_high"]
    assert ("accuracy_gain_over_baseline", "all") not in _by_key(
        score_examples("original", examples, model, None, settings, "m", "alpha1").to_pylist()
    )


def test_a_flipped_column_is_scored_per_direction_beside_the_always_contradict_answer():
    """Two directions, told apart, each with its n; and what answering CONTRADICT to every edit
    scores on the same examples: all of E->C, none of C->E."""
    from tabprobe.scoring.pooled_columns import score_pooled_examples

    gold = [f"dev:{i}" for i in range(30)]
    labels = ["E"] * 20 + ["C"] * 10
    flipped = ["C" if lab == "E" else "E" for lab in labels]
    negation = _probe_examples("negation_flip", [u + "/negation_flip" for u in gold], gold, labels, flipped)
    # A cue follower: CONTRADICT to every edit.
    members = {"negation_flip": (negation, _predictions(negation["uid"].to_pylist(), gold, ["C"] * 30))}
    settings = ScoringSettings(samplings=20, fraction=0.8, bootstrap=50, seed=4)
    rows = _by_key(
        score_pooled_examples("table4", "label_flipped", members, None, settings, model="m", split="alpha1").to_pylist()
    )
    assert (rows[("accuracy", "E->C")]["n"], rows[("accuracy", "C->E")]["n"]) == (20, 10)
    assert rows[("accuracy", "E->C")]["mean"] == pytest.approx(100.0)
    assert rows[("accuracy", "C->E")]["mean"] == pytest.approx(0.0)
    assert rows[("cue_accuracy", "E->C")]["mean"] == pytest.approx(100.0)
    assert rows[("cue_accuracy", "C->E")]["mean"] == pytest.approx(0.0)
    # Overall the cue scores the share of E->C edits, exactly what this model scores.
    assert rows[("cue_accuracy", "all")]["mean"] == pytest.approx(rows[("accuracy", "all")]["mean"])
    # A label-keeping column has no directions.
    kept = _probe_examples("number_preserve", [u + "/number_preserve" for u in gold], gold, labels, labels)
    preserved = score_pooled_examples(
        "table4",
        "label_preserved",
        {"number_preserve": (kept, _predictions(kept["uid"].to_pylist(), gold, labels))},
        None,
        settings,
        model="m",
        split="alpha1",
    )
    assert not {r["label"] for r in preserved.to_pylist()} & {"E->C", "C->E"}
    assert "cue_accuracy" not in preserved["statistic"].to_pylist()


def test_a_two_label_rule_reads_a_three_way_models_neutral_answers_as_not_entailed_and_counts_them():
    """TabFact's column_permutation (E->E, C->C): a 3-way model's N is scored as C, and the share of
    N answers before and after the change is a statistic of its own; no N label appears."""
    rule = get_probe("column_permutation").transition_rule
    assert rule.labels == ("E", "C")
    before = np.array(["E", "N", "C", "E", "C"], dtype=object)
    after = np.array(["E", "C", "N", "C", "C"], dtype=object)  # N->C and C->N both stay C: valid
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=20, seed=1)  # the full set: exact
    rows = _by_key(score_transitions(before, after, rule, Scorer(5, settings, "x")))
    assert rows[("invalid_transition_pct", "all")]["mean"] == pytest.approx(20.0)  # only E->C is invalid
    assert rows[("neutral_answers_pct_before", "all")]["mean"] == pytest.approx(20.0)
    assert rows[("neutral_answers_pct_after", "all")]["mean"] == pytest.approx(20.0)
    assert not [key for key in rows if key[1] == "N" or key[0].endswith("_to_N")]
    assert rows[("invalid_transition_pct", "C")]["n"] == 3  # the N read as C joins C's examples


def test_a_three_label_rule_has_no_neutral_answer_statistic():
    rows = _by_key(
        score_transitions(
            np.array(["E", "N"], dtype=object),
            np.array(["N", "N"], dtype=object),
            get_probe("row_deletion").transition_rule,
            Scorer(2, ScoringSettings(samplings=3, fraction=0.8, bootstrap=20)),
        )
    )
    assert not [key for key in rows if key[0].startswith("neutral_answers")]
    assert ("invalid_transition_pct", "N") in rows


def test_a_tabfact_probe_is_scored_over_two_labels_with_neutral_answers_read_as_refuted_and_counted():
    """tf_negation on TabFact (labels E, C): a three-way model's N answer counts as C (REFUTED: "not
    entailed"), the share of N answers is its own statistic, and there is no N or "EC" row."""
    orig_uids = [f"val:t:{i}" for i in range(6)]
    probe_uids = [u + "/tf_negation" for u in orig_uids]
    gold = ["E", "E", "E", "C", "C", "C"]
    expected = ["C", "C", "C", "E", "E", "E"]
    # tf_original's rows are named like any probe's: its predictions pair by the gold example.
    original = _predictions([u + "/tf_original" for u in orig_uids], orig_uids, ["E", "N", "E", "C", "N", "C"])
    probed = _predictions(probe_uids, orig_uids, ["N", "C", "E", "E", "N", "E"])
    examples = _probe_examples("tf_negation", probe_uids, orig_uids, gold, expected)
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=20, seed=1)  # the full set: exact
    rows = _by_key(
        score_examples("tf_negation", examples, probed, original, settings, model="m", split="val").to_pylist()
    )
    assert rows[("accuracy", "all")]["mean"] == pytest.approx(100 * 4 / 6)
    assert rows[("accuracy", "C")]["mean"] == pytest.approx(100 * 2 / 3)  # the N read as C is right
    assert rows[("accuracy", "E")]["mean"] == pytest.approx(100 * 2 / 3)  # the N read as C is wrong
    assert rows[("neutral_answers_pct", "all")]["mean"] == pytest.approx(100 * 2 / 6)
    # the originals' N answers read as C too: right on "val:t:4" (gold C), wrong on "val:t:1" (gold E)
    assert rows[("original_accuracy", "all")]["mean"] == pytest.approx(100 * 5 / 6)
    assert not [key for key in rows if key[1] in ("N", "EC")]


def test_an_infotabs_probe_keeps_its_three_labels_and_has_no_neutral_answer_statistic():
    uids = ["dev:2", "dev:3", "dev:4"]
    examples = _probe_examples("original", uids, uids, ["E", "N", "C"], ["E", "N", "C"])
    settings = ScoringSettings(samplings=5, fraction=1.0, bootstrap=20, seed=1)
    table = score_examples(
        "original", examples, _predictions(uids, uids, ["E", "N", "N"]), None, settings, model="m", split="dev"
    )
    rows = _by_key(table.to_pylist())
    assert rows[("accuracy", "N")]["mean"] == pytest.approx(100.0) and ("accuracy", "EC") in rows
    assert not [key for key in rows if key[0] == "neutral_answers_pct"]
