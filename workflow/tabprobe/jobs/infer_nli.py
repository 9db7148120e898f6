"""Rule infer_nli: one model's predictions on one probe's examples of one split."""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from .. import models, schemas
from ..io import read_parquet, write_json, write_parquet


def infer_nli(
    probe_path: str,
    checkpoint: str,
    out: str,
    stats_out: str,
    premise: str,
    label_map: Mapping[str, str] | None = None,
    batch_size: int = 32,
    max_length: int = 512,
    precision: str = "auto",
    pair_order: str = "premise_first",
    threads: int = 1,
    shard_size: int = 512,
) -> None:
    import torch

    torch.set_num_threads(max(1, threads))
    probe_examples = read_parquet(probe_path, schemas.PROBE_EXAMPLES)
    loaded = models.load_classifier(checkpoint, label_map)
    # Finished blocks are kept beside the output until it is written, so a killed job resumes.
    shard_dir = Path(out).with_name(f".{Path(out).stem}.shards")
    start = time.monotonic()
    predictions, stats = models.infer(
        probe_examples,
        loaded,
        premise,
        batch_size=batch_size,
        max_length=max_length,
        precision=precision,
        shard_dir=shard_dir,
        shard_size=shard_size,
        pair_order=pair_order,
    )
    seconds = time.monotonic() - start
    write_parquet(predictions, out, schemas.PREDICTIONS)
    write_json(
        {
            **stats,
            "checkpoint": str(checkpoint),
            "premise": premise,
            "fingerprint": loaded.fingerprint,
            "meta": models.read_meta(checkpoint),
            "seconds": round(seconds, 2),
            "threads": threads,
        },
        stats_out,
    )
    shutil.rmtree(shard_dir, ignore_errors=True)  # only once both outputs are in place
