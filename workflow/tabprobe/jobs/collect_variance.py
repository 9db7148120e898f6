"""Rule collect_variance: the controlled-variance experiment's scores in one file, and its summary
(the learning curve per test range, mean and spread over the repeats)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .. import schemas, variance
from ..io import read_parquet, write_json, write_parquet

log = logging.getLogger(__name__)


def collect_variance(
    base: str,
    score_paths: Mapping[int, Mapping[int, str]],
    out: str,
    summary_out: str,
    settings: Mapping[str, Any],
) -> None:
    """`score_paths`: size -> repeat -> score_variance's file (size 0: the model before). The
    scores are concatenated by size, then repeat (the given paths' order does not matter)."""
    import pyarrow as pa

    tables = [
        read_parquet(score_paths[size][resample], schemas.SCORES)
        for size in sorted(score_paths, key=int)
        for resample in sorted(score_paths[size], key=int)
    ]
    scores = pa.concat_tables(tables)
    write_parquet(scores, out, schemas.SCORES)
    summary = variance.summarise(
        base,
        scores.to_pylist(),
        settings["train_range"],
        settings["test_ranges"],
        settings["train_sizes"],
        settings["resamples"],
    )
    write_json(summary, summary_out)
    for ranges in summary["ranges"]:
        log.info(
            "range %s: mean accuracy by training size %s",
            ranges["range"],
            ", ".join(
                f"{p['size']}: {'–' if p['mean'] is None else format(p['mean'], '.2f')}" for p in ranges["curve"]
            ),
        )
