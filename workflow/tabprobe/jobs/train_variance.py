"""Rule train_variance: one repeat of the controlled-variance fine-tuning."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .. import infotabs, inoculation, schemas, variance
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
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Controlled variance, one repeat: fine-tune `checkpoint` on num_comparative examples from
    train tables with numbers in the training range, stopping early on such examples from dev."""
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
        return found.to_pylist()

    train = examples(train_path, train_tables_path, settings["train_examples"], "train")
    dev = examples(dev_path, dev_tables_path, settings["dev_examples"], "dev")
    inoculation.fine_tune_into(out, checkpoint, train, dev, settings["learning_rate"], settings, model, repeat_seed)
