"""Rule score_probe: one probe's scores for one model and split (100 samplings of 80%)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import schemas, scoring
from ..curation import scored
from ..io import read_parquet, write_parquet
from ..probes import register_externals


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
) -> None:
    """`baseline_predictions_path`: the hypothesis-only model's `original` predictions on this
    split (probe `original` of a premise model only), for its paired gain over that baseline."""
    register_externals(externals)
    table = scoring.score_probe(
        probe,
        scored(read_parquet(probe_path, schemas.PROBE_EXAMPLES), unverified_flips),
        read_parquet(predictions_path, schemas.PREDICTIONS),
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        scoring.ScoringSettings(seed=seed, **settings),
        model=model,
        split=split,
        baseline_predictions=(
            read_parquet(baseline_predictions_path, schemas.PREDICTIONS) if baseline_predictions_path else None
        ),
    )
    write_parquet(table, out, schemas.SCORES)
