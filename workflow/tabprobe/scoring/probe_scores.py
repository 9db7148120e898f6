"""Scores from predictions alone, vectorised.

The paper's protocol (section 4): 100 samplings of 80% of the examples without replacement,
mean and standard deviation of the statistic. Beyond the paper: a percentile bootstrap
interval (resampling with replacement) for each statistic.

A statistic is a ratio of per-example sums, numerator / denominator (accuracy: correct / all;
invalid-transition % for label E: invalid among predicted-E / predicted-E), so both protocols
reduce to one matrix product with a sample-weight matrix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import LABELS, schemas
from tabprobe.config.settings import baseline_probe
from tabprobe.data.datasets import get_dataset
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS
from tabprobe.io import read_parquet, write_parquet
from tabprobe.probes import get_probe, is_fixed_set, register_externals
from tabprobe.probes.curation import scored
from tabprobe.probes.transitions import TransitionRule
from tabprobe.seeding import seeded_rng


@dataclass(frozen=True)
class ScoringSettings:
    samplings: int = 100
    fraction: float = 0.8
    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 0


def subsample_weights(n: int, samplings: int, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """(samplings x n) 0/1 matrix: each row marks a random subset of round(fraction * n) examples."""
    size = max(1, int(round(fraction * n)))
    weights = np.zeros((samplings, n), dtype=np.float64)
    for row in weights:
        row[rng.permutation(n)[:size]] = 1.0
    return weights


def bootstrap_weights(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples x n) matrix of how often each example is drawn in a resample of size n."""
    draws = rng.integers(0, n, size=(resamples, n))
    return np.stack([np.bincount(row, minlength=n) for row in draws]).astype(np.float64)


def _ratio(weights: np.ndarray, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    num = weights @ numerator
    den = weights @ denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 100.0 * num / np.where(den > 0, den, 1.0), np.nan)


class Scorer:
    """Computes ratio statistics over one fixed set of examples with one fixed set of samplings."""

    def __init__(self, n: int, settings: ScoringSettings, *names: str):
        rng = seeded_rng(settings.seed, "scoring", *names)
        self.n = n
        self.settings = settings
        self.subsamples = subsample_weights(n, settings.samplings, settings.fraction, rng) if n else None
        self.resamples = bootstrap_weights(n, settings.bootstrap, rng) if n else None

    def stat(self, numerator: np.ndarray, denominator: np.ndarray) -> dict:
        count = int(denominator.sum())
        if count == 0:
            return {"mean": None, "std": None, "ci_low": None, "ci_high": None, "n": 0}
        sub = _ratio(self.subsamples, numerator, denominator)
        boot = _ratio(self.resamples, numerator, denominator)
        sub, boot = sub[~np.isnan(sub)], boot[~np.isnan(boot)]
        # A label so rare that almost no sampling contains it has no usable spread: say so
        # with nulls rather than a NaN or a made-up std of 0.
        if len(sub) < 2 or len(boot) < 2:
            return {"mean": None, "std": None, "ci_low": None, "ci_high": None, "n": count}
        alpha = (1 - self.settings.confidence) / 2
        low, high = np.quantile(boot, [alpha, 1 - alpha])
        return {
            "mean": float(np.mean(sub)),
            "std": float(np.std(sub, ddof=1)),
            "ci_low": float(low),
            "ci_high": float(high),
            "n": count,
        }


def scorer_for(subset: np.ndarray, scorer: Scorer, settings: ScoringSettings, *names: str) -> Scorer:
    """The scorer of the examples `subset` marks: `scorer` itself when it marks all of them (so
    the usual case keeps its samplings), else one with its own samplings, seeded by `names`."""
    return scorer if subset.all() else Scorer(int(subset.sum()), settings, *names)


def _label_masks(values: np.ndarray, labels: tuple[str, ...] = LABELS) -> dict[str, np.ndarray]:
    return {lab: (values == lab).astype(np.float64) for lab in labels}


# What a NEUTRAL answer means on a two-label dataset (a fact-checking one: ENTAILED / REFUTED, where a statement
# the table does not support is refuted): "not entailed". A three-way model's N is scored as C there,
# and how often it answered N is its own statistic, so the reading is never hidden.
NOT_ENTAILED = "C"


def as_two_labels(predictions: np.ndarray, labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Predictions in `labels`' terms, and which of them were NEUTRAL answers read as NOT_ENTAILED
    (none where the labels hold N)."""
    if "N" in labels:
        return predictions, np.zeros(len(predictions), dtype=bool)
    neutral = np.asarray(predictions == "N", dtype=bool)
    return np.where(neutral, NOT_ENTAILED, predictions).astype(predictions.dtype), neutral


def score_expected(
    expected: np.ndarray,
    pred: np.ndarray,
    scorer: Scorer,
    labels: tuple[str, ...] = LABELS,
    neutral: np.ndarray | None = None,
) -> list[dict]:
    """Accuracy against the expected label, overall, per expected label, and over the E and C
    examples together ("EC": the paper's "w/o NEUTRAL", Table 4). Over a two-label dataset's
    `labels` (E, C; `pred` read by as_two_labels) there is no N row and no "EC", which
    would repeat "all", and the share of `neutral` answers (read as C) is a statistic of its own."""
    correct = (pred == expected).astype(np.float64)
    rows = [{"statistic": "accuracy", "label": "all", **scorer.stat(correct, np.ones_like(correct))}]
    if "N" in labels:
        not_neutral = (expected != "N").astype(np.float64)
        rows.append({"statistic": "accuracy", "label": "EC", **scorer.stat(correct * not_neutral, not_neutral)})
    for lab, mask in _label_masks(expected, labels).items():
        rows.append({"statistic": "accuracy", "label": lab, **scorer.stat(correct * mask, mask)})
    if "N" not in labels and neutral is not None:
        ones = np.ones(len(pred))
        rows.append(
            {"statistic": "neutral_answers_pct", "label": "all", **scorer.stat(neutral.astype(np.float64), ones)}
        )
    return rows


def direction(gold: str, expected: str) -> str:
    """How a label-flipping edit moves the gold label: "E->C", "C->E", ..."""
    return f"{gold}->{expected}"


# The answer of a model that follows the edit's cue and not the table: an edited hypothesis (or
# table) is a contradiction. On E->C flips it is always right, on C->E always wrong, so a flipped
# column holding E->C edits alone would credit it in full.
CUE_ANSWER = "C"


def score_directions(gold: np.ndarray, expected: np.ndarray, pred: np.ndarray, scorer: Scorer) -> list[dict]:
    """A label-flipping column split by direction (gold -> expected: E->C, C->E), each with its n,
    and the accuracy the cue-following answer (CUE_ANSWER on every example) gets on the same
    examples and samplings, overall and per direction. A column with one direction only cannot
    tell a model that reads the table from one that follows the cue; the report says so."""
    correct = (pred == expected).astype(np.float64)
    cue = (expected == CUE_ANSWER).astype(np.float64)
    ones = np.ones(len(gold))
    rows = [{"statistic": "cue_accuracy", "label": "all", **scorer.stat(cue, ones)}]
    flips = sorted({direction(g, e) for g, e in zip(gold, expected) if g != e})
    for name in flips:
        before, after = name.split("->")
        mask = ((gold == before) & (expected == after)).astype(np.float64)
        rows.append({"statistic": "accuracy", "label": name, **scorer.stat(correct * mask, mask)})
        rows.append({"statistic": "cue_accuracy", "label": name, **scorer.stat(cue * mask, mask)})
    return rows


def original_predictions_for(
    original_predictions: pa.Table, orig_uids: list[str], column: str = "pred", missing_ok: bool = False
) -> np.ndarray:
    """A column (the prediction, or the digest of the model's input) of the original prediction
    of each gold example, in the given order. With `missing_ok`, None where there is none (an
    external probe set may pair with gold examples outside `original`'s cap). Keyed by the gold
    example (`orig_uid`): an unperturbed probe has one row per gold example, and another dataset's
    baseline names its rows like any probe's (`original` gives its rows the gold uid itself)."""
    before = dict(zip(original_predictions["orig_uid"].to_pylist(), original_predictions[column].to_pylist()))
    lost = [u for u in orig_uids if u not in before]
    if lost and not missing_ok:
        raise ValueError(
            f"{len(lost)} probe examples have no original prediction (first: {lost[0]}); "
            "run `original` on this split with a cap at least as large"
        )
    return np.array([before.get(u) for u in orig_uids], dtype=object)


def score_paired_drop(
    gold: np.ndarray, original_pred: np.ndarray, expected: np.ndarray, pred: np.ndarray, scorer: Scorer
) -> list[dict]:
    """Accuracy of the unperturbed examples (against gold) on exactly the gold examples the probe
    edited, and the drop to the probe's accuracy, both on the same samplings: a paired
    comparison (docs/report.md, "How a score is computed"), so sampling noise common to both cancels."""
    original_correct = (original_pred == gold).astype(np.float64)
    probe_correct = (pred == expected).astype(np.float64)
    ones = np.ones(len(gold))
    return [
        {"statistic": "original_accuracy", "label": "all", **scorer.stat(original_correct, ones)},
        {"statistic": "accuracy_drop", "label": "all", **scorer.stat(original_correct - probe_correct, ones)},
    ]


def score_gain_over_baseline(
    probe_examples: pa.Table,
    expected: np.ndarray,
    pred: np.ndarray,
    baseline_predictions: pa.Table,
    scorer: Scorer,
    settings: ScoringSettings,
    split: str,
    labels: tuple[str, ...] = LABELS,
) -> dict:
    """Accuracy of the model minus that of the hypothesis-only baseline on the same examples and
    samplings (points): what reading the table adds over the hypothesis alone (Gupta et al.
    2020, section 4: every model must beat it)."""
    gold_uids = probe_examples["orig_uid"].to_pylist()
    base = as_two_labels(original_predictions_for(baseline_predictions, gold_uids, missing_ok=True), labels)[0]
    shared = np.array([b is not None for b in base])
    paired = scorer_for(shared, scorer, settings, split, "original", "baseline")
    gain = (pred[shared] == expected[shared]).astype(np.float64) - (base[shared] == expected[shared]).astype(np.float64)
    return {"statistic": "accuracy_gain_over_baseline", "label": "all", **paired.stat(gain, np.ones(len(gain)))}


def score_transitions(
    before: np.ndarray, after: np.ndarray, rule: TransitionRule, scorer: Scorer, input_changed: np.ndarray | None = None
) -> list[dict]:
    """Invalid-transition % per label predicted before the change (paper Tables 5, 13-17),
    the transition matrix in %, and the share of unchanged predictions.

    With `input_changed` (per example: did the tokens the model saw differ from the
    original's?), also the share of visible perturbations and the invalid-transition % over
    those alone: a row cut off past max_length cannot move a prediction, and counting it as
    a stable (valid) prediction flatters the model.
    """
    labels = rule.labels  # E, N, C; E and C for a two-label dataset's rule
    (before, neutral_before), (after, neutral_after) = as_two_labels(before, labels), as_two_labels(after, labels)
    # A served model's unparsed answer (schemas.UNPARSED) on either side is no transition between
    # labels: such pairs are left out here, and counted by `unparsed_pct`.
    judged = np.array([b in labels and a in labels for b, a in zip(before, after)], dtype=np.float64)
    invalid = np.array([j and not rule.is_valid(b, a) for b, a, j in zip(before, after, judged)], dtype=np.float64)
    before_masks = {lab: mask * judged for lab, mask in _label_masks(before, labels).items()}
    after_masks = _label_masks(after, labels)
    ones = np.ones(len(before))
    rows = [{"statistic": "invalid_transition_pct", "label": "all", **scorer.stat(invalid, judged)}]
    if "N" not in labels:  # how often a three-way model answered N, before and after the change
        for when, neutral in (("before", neutral_before), ("after", neutral_after)):
            rows.append({"statistic": f"neutral_answers_pct_{when}", "label": "all", **scorer.stat(neutral, ones)})
    for lab, mask in before_masks.items():
        rows.append({"statistic": "invalid_transition_pct", "label": lab, **scorer.stat(invalid * mask, mask)})
        for to_lab, to_mask in after_masks.items():
            rows.append({"statistic": f"transition_pct_to_{to_lab}", "label": lab, **scorer.stat(mask * to_mask, mask)})
    unchanged = (before == after).astype(np.float64) * judged
    rows.append({"statistic": "unchanged_pct", "label": "all", **scorer.stat(unchanged, judged)})
    for lab, mask in before_masks.items():
        rows.append({"statistic": "unchanged_pct", "label": lab, **scorer.stat(unchanged * mask, mask)})
    # Where the rule forbids keeping the prediction (relevant rows deleted: ENTAIL and CONTRADICT
    # must become NEUTRAL), staying put is the failure, and it is what a model that ignores its
    # table always does: this share tells the two readings of a low invalid % apart.
    if any(lab not in rule.allowed[lab] for lab in labels):
        required = np.array([j and b not in rule.allowed[b] for b, j in zip(before, judged)], dtype=np.float64)
        rows.append(
            {"statistic": "unchanged_where_required_pct", "label": "all", **scorer.stat(unchanged * required, required)}
        )
    if input_changed is not None:
        changed = np.asarray(input_changed, dtype=np.float64)
        rows.append({"statistic": "input_changed_pct", "label": "all", **scorer.stat(changed, ones)})
        rows.append(
            {
                "statistic": "invalid_transition_pct_input_changed",
                "label": "all",
                **scorer.stat(invalid * changed, changed * judged),
            }
        )
        for lab, mask in before_masks.items():
            rows.append(
                {
                    "statistic": "invalid_transition_pct_input_changed",
                    "label": lab,
                    **scorer.stat(invalid * mask * changed, mask * changed),
                }
            )
    return rows


def evidence_sets(probe_examples: pa.Table, before: np.ndarray, pred: np.ndarray) -> dict[str, dict]:
    """Per gold example (evidence_selection probe: one probe example per deleted row): the rows
    the relevance source names (`relevant`) and the rows whose deletion alone changed the model's
    prediction (`used`), as row indices."""
    out: dict[str, dict] = {}
    for record, b, p in zip(probe_examples.select(["orig_uid", "label", "provenance"]).to_pylist(), before, pred):
        provenance = json.loads(record["provenance"])
        entry = out.setdefault(
            record["orig_uid"], {"label": record["label"], "before": b, "relevant": set(), "used": set()}
        )
        index = provenance["deleted_row"]["index"]
        if provenance["relevant"]:
            entry["relevant"].add(index)
        if p != b and schemas.UNPARSED not in (p, b):  # an unparsed answer is no move of the prediction
            entry["used"].add(index)
    return out


# Shares of gold examples by how the model's evidence (rows whose deletion moves its prediction)
# meets the relevant rows: paper section 5.3's (a) all, (c) some, (b) wrong or none, and, within
# (b), no row at all (the prediction ignores the table).
EVIDENCE_CLASSES = ("uses_all_relevant", "uses_some_relevant", "uses_wrong_or_no_rows", "ignores_table")


def score_evidence_selection(
    probe_examples: pa.Table,
    before: np.ndarray,
    pred: np.ndarray,
    settings: ScoringSettings,
    split: str,
    probe_name: str,
) -> list[dict]:
    """The model's evidence against the relevance source (paper section 5.3): per-example
    (macro) precision and recall, an empty selection counting as precision 0 as the paper's
    near-equal averages suggest; pooled (micro) precision and recall; the shares of
    EVIDENCE_CLASSES; and how the correct predictions split over them. Sampled per gold example."""
    sets = evidence_sets(probe_examples, before, pred)
    uids = sorted(sets)
    scorer = Scorer(len(uids), settings, split, probe_name, "evidence")
    hits = np.array([len(sets[u]["used"] & sets[u]["relevant"]) for u in uids], dtype=np.float64)
    used = np.array([len(sets[u]["used"]) for u in uids], dtype=np.float64)
    relevant = np.array([len(sets[u]["relevant"]) for u in uids], dtype=np.float64)
    ones = np.ones(len(uids))
    correct = np.array([sets[u]["before"] == sets[u]["label"] for u in uids], dtype=np.float64)
    classes = {
        "uses_all_relevant": (hits == relevant) & (relevant > 0),
        "uses_some_relevant": (hits > 0) & (hits < relevant),
        "uses_wrong_or_no_rows": hits == 0,
        "ignores_table": used == 0,
    }
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(used > 0, hits / np.where(used > 0, used, 1), 0.0)
        recall = np.where(relevant > 0, hits / np.where(relevant > 0, relevant, 1), 0.0)
    rows = [
        {"statistic": "evidence_precision", "label": "macro", **scorer.stat(precision, ones)},
        {"statistic": "evidence_recall", "label": "macro", **scorer.stat(recall, ones)},
        {"statistic": "evidence_precision", "label": "micro", **scorer.stat(hits, used)},
        {"statistic": "evidence_recall", "label": "micro", **scorer.stat(hits, relevant)},
        {"statistic": "original_accuracy", "label": "all", **scorer.stat(correct, ones)},
    ]
    for name, mask in classes.items():
        mask = mask.astype(np.float64)
        rows.append({"statistic": f"{name}_pct", "label": "all", **scorer.stat(mask, ones)})
        rows.append({"statistic": f"{name}_pct", "label": "correct", **scorer.stat(mask * correct, ones)})
    return rows


def unparsed_share(pred: list[str], scorer: Scorer) -> dict:
    """The share of a served model's answers that gave no label (schemas.UNPARSED): wrong wherever a
    label is expected, no transition either way, and counted for every probe (0 included)."""
    unparsed = np.array([p == schemas.UNPARSED for p in pred], dtype=np.float64)
    return {"statistic": "unparsed_pct", "label": "all", **scorer.stat(unparsed, np.ones(len(pred)))}


def score_examples(
    probe_name: str,
    probe_examples: pa.Table,
    predictions: pa.Table,
    original_predictions: pa.Table | None,
    settings: ScoringSettings,
    model: str,
    split: str,
    baseline_predictions: pa.Table | None = None,
    served: bool = False,
) -> pa.Table:
    """All statistics of one probe on one split for one model, in the `schemas.SCORES` layout.
    `baseline_predictions` (probe `original` only): the hypothesis-only model's predictions on the
    same examples, for the paired gain over it. `served`: a served model's, whose share of
    unparsed answers is a statistic too (`unparsed_pct`)."""
    probe = get_probe(probe_name)
    by_uid = dict(zip(predictions["uid"].to_pylist(), predictions["pred"].to_pylist()))
    uids = probe_examples["uid"].to_pylist()
    missing = [u for u in uids if u not in by_uid]
    if missing:
        raise ValueError(f"{len(missing)} probe examples have no prediction (first: {missing[0]}); re-run infer_nli")
    pred = np.array([by_uid[u] for u in uids], dtype=object)
    scorer = Scorer(len(uids), settings, split, probe_name)
    if probe.judged_by != "expected" and original_predictions is None:
        raise ValueError(f"probe {probe_name} is judged by {probe.judged_by} and needs the original predictions")
    if original_predictions is not None and probe_name != "original":
        orig_uids = probe_examples["orig_uid"].to_pylist()
        lenient = is_fixed_set(probe_name)
        before = original_predictions_for(original_predictions, orig_uids, missing_ok=lenient)
        # Did the tokens the model saw differ from the original's? An edit to a row cut off past
        # max_length never reaches the model, and counting it as a stable prediction flatters it.
        digest = dict(zip(predictions["uid"].to_pylist(), predictions["input_digest"].to_pylist()))
        changed = original_predictions_for(
            original_predictions, orig_uids, "input_digest", missing_ok=lenient
        ) != np.array([digest[u] for u in uids], dtype=object)
    if probe.judged_by == "expected":
        expected = np.array(probe_examples["expected"].to_pylist(), dtype=object)
        # A two-label dataset's probe: a three-way model's N answers read as C, and counted.
        labels = get_dataset(probe.datasets[0]).labels
        pred, neutral = as_two_labels(pred, labels)
        if original_predictions is not None and probe_name != "original":
            before = as_two_labels(before, labels)[0]
        rows = score_expected(expected, pred, scorer, labels, neutral)
        if probe.label_change == "flipped":
            rows += score_directions(
                np.array(probe_examples["label"].to_pylist(), dtype=object), expected, pred, scorer
            )
        paired = (
            np.array([b is not None for b in before])
            if original_predictions is not None and probe_name != "original"
            else None
        )
        if paired is not None and paired.any():
            # Only the examples with an original prediction (all of them, except for external
            # sets paired with gold examples outside `original`'s cap): their own samplings.
            gold = np.array(probe_examples["label"].to_pylist(), dtype=object)
            paired_scorer = scorer_for(paired, scorer, settings, split, probe_name, "paired")
            rows += score_paired_drop(gold[paired], before[paired], expected[paired], pred[paired], paired_scorer)
            rows.append(
                {
                    "statistic": "input_changed_pct",
                    "label": "all",
                    **paired_scorer.stat(changed[paired].astype(np.float64), np.ones(int(paired.sum()))),
                }
            )
        if baseline_predictions is not None and probe_name == baseline_probe(probe_name):
            rows.append(
                score_gain_over_baseline(
                    probe_examples, expected, pred, baseline_predictions, scorer, settings, split, labels
                )
            )
    elif probe.judged_by == "evidence":
        rows = score_evidence_selection(probe_examples, before, pred, settings, split, probe_name)
    else:
        rows = score_transitions(before, pred, probe.transition_rule, scorer, input_changed=changed)
    if served:
        rows.append(unparsed_share([by_uid[u] for u in uids], scorer))
    for row in rows:
        row.update(model=model, probe=probe_name, split=split)
    return pa.Table.from_pylist(rows, schema=schemas.SCORES)


def score_probe(
    probe: str,
    split: str,
    model: str,
    probe_path: str,
    predictions_path: str,
    original_predictions_path: str | None,
    out: str,
    settings: Mapping[str, Any],
    seed: int,
    externals: Mapping[str, str | None] | None = None,
    unverified_flips: str = "exclude",
    baseline_predictions_path: str | None = None,
    served: bool = False,
) -> None:
    """Rule score_probe: one probe's scores for one model and split (100 samplings of 80%).
    `baseline_predictions_path`: the hypothesis-only model's `original` predictions on this split (probe
    `original` of a premise model only), for its paired gain over that baseline. `served`: a served
    model's predictions (their unparsed answers counted)."""
    register_externals(externals)
    table = score_examples(
        probe,
        scored(read_parquet(probe_path, PROBE_EXAMPLES_SCHEMAS), unverified_flips),
        read_parquet(predictions_path, schemas.PREDICTIONS),
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        ScoringSettings(seed=seed, **settings),
        model=model,
        split=split,
        baseline_predictions=(
            read_parquet(baseline_predictions_path, schemas.PREDICTIONS) if baseline_predictions_path else None
        ),
        served=served,
    )
    write_parquet(table, out, schemas.SCORES)
