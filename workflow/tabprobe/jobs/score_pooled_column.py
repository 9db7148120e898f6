"""Rule score_pooled_column: one column of a pooled paper table (Tables 4 and 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import schemas, scoring
from ..curation import scored
from ..io import read_parquet, write_parquet


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
    members = {
        name: (
            scored(read_parquet(probe_path, schemas.PROBE_EXAMPLES), unverified_flips),
            read_parquet(pred_path, schemas.PREDICTIONS),
        )
        for name, probe_path, pred_path in zip(probe_names, probe_paths, prediction_paths, strict=True)
    }
    scores = scoring.score_pooled_column(
        table,
        column,
        members,
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        scoring.ScoringSettings(seed=seed, **settings),
        model=model,
        split=split,
        hypothesis_only_predictions=(
            read_parquet(hypothesis_only_predictions_path, schemas.PREDICTIONS)
            if hypothesis_only_predictions_path
            else None
        ),
    )
    write_parquet(scores, out, schemas.SCORES)
