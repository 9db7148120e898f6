"""Rule train_variance: one (repeat, training size) of the controlled-variance fine-tuning."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .. import errors, infotabs, inoculation, schemas, variance
from ..io import read_parquet

log = logging.getLogger(__name__)


def train_variance(
    checkpoint: str,
    train_path: str,
    train_tables_path: str,
    dev_path: str,
    dev_tables_path: str,
    out: str,
    resample: int,
    size: int,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Controlled variance, one repeat and size: fine-tune `checkpoint` on the first `size`
    num_comparative examples of the repeat's draw from train tables with numbers in the training
    range (nested: a smaller size trains on the start of a larger one's examples), stopping early
    on such examples from dev (the same for every size of the repeat)."""
    import torch

    torch.set_num_threads(max(1, threads))
    repeat_seed = variance.resample_seed(seed, resample)
    bounds = settings["train_range"]

    def examples(path, tables_path, count, split):
        found = variance.range_examples(
            read_parquet(path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(tables_path, schemas.TABLES)),
            bounds,
            count,
            repeat_seed,
            split,
        )
        log.info("%d %s examples with numbers in %s", found.num_rows, split, variance.range_label(bounds))
        return found

    train = examples(train_path, train_tables_path, size, "train")
    if train.num_rows < size:
        # A point of the learning curve must train on what its size says.
        raise errors.TabprobeError(
            f"config key controlled_variance.train_sizes: {size}: {train_path} yields only {train.num_rows} "
            f"num_comparative examples with numbers in {variance.range_label(bounds)}; use sizes up to "
            f"{train.num_rows}"
        )
    dev = examples(dev_path, dev_tables_path, settings["dev_examples"], "dev")
    inoculation.fine_tune_into(
        out, checkpoint, train.to_pylist(), dev.to_pylist(), settings["learning_rate"], settings, model, repeat_seed
    )
