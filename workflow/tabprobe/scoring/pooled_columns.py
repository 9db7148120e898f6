"""Scores of the paper's pooled tables (Tables 4 and 7: one column pools several probes, one
example per gold example; Table 8's paired correctness), by the same samplings as probe_scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.io import read_parquet, write_parquet
from tabprobe.probes.curation import scored
from tabprobe.scoring.probe_scores import (
    Scorer,
    ScoringSettings,
    original_predictions_for,
    score_directions,
    score_expected,
    score_paired_drop,
    scorer_for,
)
from tabprobe.seeding import seeded_rng


def pool_one_per_gold(
    members: dict[str, pa.Table], seed: int, column: str, split: str, table: str = "table4"
) -> list[tuple[str, dict]]:
    """One perturbed example per gold example, drawn (seeded per gold example) from all the
    probes of a pooled column (paper Table 4 or 7) that perturbed it: the paper's "a single
    perturbed example must be sampled for each gold example"."""
    by_gold: dict[str, list[tuple[str, dict]]] = {}
    for probe_name in sorted(members):
        for record in members[probe_name].select(["uid", "orig_uid", "label", "expected"]).to_pylist():
            by_gold.setdefault(record["orig_uid"], []).append((probe_name, record))
    chosen = []
    for orig_uid in sorted(by_gold):
        candidates = by_gold[orig_uid]
        pick = (
            int(seeded_rng(seed, table, column, split, orig_uid).integers(len(candidates)))
            if len(candidates) > 1
            else 0
        )
        chosen.append(candidates[pick])
    return chosen


# Paper Table 8: correctness of (counterfactual, original) for the premise model and of the
# hypothesis-only model on the original, as "1"/"0" for each, in that order ("010": the premise
# model is right on the original and wrong on the counterfactual; the hypothesis-only model is wrong).
PAIRED_CORRECTNESS = tuple(f"{cf}{orig}{hypo}" for cf in "10" for orig in "10" for hypo in "10")


def score_paired_correctness(
    cf_correct: np.ndarray, original_correct: np.ndarray, hypothesis_only_correct: np.ndarray, scorer: Scorer
) -> list[dict]:
    """% of the examples in each PAIRED_CORRECTNESS cell (paper Table 8)."""
    ones = np.ones(len(cf_correct))
    rows = []
    for cell in PAIRED_CORRECTNESS:
        mask = (
            (cf_correct == (cell[0] == "1"))
            & (original_correct == (cell[1] == "1"))
            & (hypothesis_only_correct == (cell[2] == "1"))
        ).astype(np.float64)
        rows.append({"statistic": "paired_correctness_pct", "label": cell, **scorer.stat(mask, ones)})
    return rows


def score_pooled_examples(
    table: str,
    column: str,
    members: dict[str, tuple[pa.Table, pa.Table]],
    original_predictions: pa.Table | None,
    settings: ScoringSettings,
    model: str,
    split: str,
    hypothesis_only_predictions: pa.Table | None = None,
) -> pa.Table:
    """Accuracy on the pooled examples of one column of paper Table 4 or 7 (`members`: probe ->
    (probe examples, predictions)), and, with the original predictions, the accuracy on the same
    gold examples before the edit and the paired drop (same samplings for both: docs/report.md,
    "How a score is computed"); with a hypothesis-only model's original predictions too, paper Table 8. Examples paired
    with no original prediction (external sets) are left out of the paired numbers. Scores are
    filed under probe "<table>:<column>"."""
    chosen = pool_one_per_gold(
        {p: examples for p, (examples, _) in members.items()}, settings.seed, column, split, table
    )
    predicted = {p: dict(zip(preds["uid"].to_pylist(), preds["pred"].to_pylist())) for p, (_, preds) in members.items()}
    missing = [r["uid"] for p, r in chosen if r["uid"] not in predicted[p]]
    if missing:
        raise ValueError(f"{len(missing)} probe examples have no prediction (first: {missing[0]}); re-run infer_nli")
    expected = np.array([r["expected"] for _, r in chosen], dtype=object)
    pred = np.array([predicted[p][r["uid"]] for p, r in chosen], dtype=object)
    # Table 4's samplings keep the seed names they had before Table 7 shared this function.
    scorer = (
        Scorer(len(chosen), settings, split, column)
        if table == "table4"
        else Scorer(len(chosen), settings, split, table, column)
    )
    rows = score_expected(expected, pred, scorer)
    gold = np.array([r["label"] for _, r in chosen], dtype=object)
    if column == "label_flipped":
        rows += score_directions(gold, expected, pred, scorer)
    if original_predictions is not None and chosen:
        orig_uids = [r["orig_uid"] for _, r in chosen]
        before = original_predictions_for(original_predictions, orig_uids, missing_ok=True)
        paired = np.array([b is not None for b in before])
        if paired.any():
            paired_scorer = scorer_for(paired, scorer, settings, split, table, column, "paired")
            rows += score_paired_drop(gold[paired], before[paired], expected[paired], pred[paired], paired_scorer)
            if hypothesis_only_predictions is not None:
                hypo = original_predictions_for(hypothesis_only_predictions, orig_uids, missing_ok=True)
                both = paired & np.array([h is not None for h in hypo])
                if both.any():
                    both_scorer = scorer_for(both[paired], paired_scorer, settings, split, table, column, "table8")
                    rows += score_paired_correctness(
                        pred[both] == expected[both], before[both] == gold[both], hypo[both] == gold[both], both_scorer
                    )
    for row in rows:
        row.update(model=model, probe=f"{table}:{column}", split=split)
    return pa.Table.from_pylist(rows, schema=schemas.SCORES)


def score_pooled_column(
    table: str,
    column: str,
    split: str,
    model: str,
    probe_names: Sequence[str],
    probe_paths: Sequence[str],
    prediction_paths: Sequence[str],
    original_predictions_path: str | None,
    out: str,
    settings: Mapping[str, Any],
    seed: int,
    hypothesis_only_predictions_path: str | None = None,
    unverified_flips: str = "exclude",
) -> None:
    """Rule score_pooled_column: one column of a pooled paper table (Tables 4 and 7)."""
    members = {
        name: (
            scored(read_parquet(probe_path, infobox.PROBE_EXAMPLES), unverified_flips),
            read_parquet(pred_path, schemas.PREDICTIONS),
        )
        for name, probe_path, pred_path in zip(probe_names, probe_paths, prediction_paths, strict=True)
    }
    scores = score_pooled_examples(
        table,
        column,
        members,
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        ScoringSettings(seed=seed, **settings),
        model=model,
        split=split,
        hypothesis_only_predictions=(
            read_parquet(hypothesis_only_predictions_path, schemas.PREDICTIONS)
            if hypothesis_only_predictions_path
            else None
        ),
    )
    write_parquet(scores, out, schemas.SCORES)
