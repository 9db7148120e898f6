"""Rule train_model: fine-tune a base encoder on InfoTabS train."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping
from typing import Any

from .. import infotabs, schemas, training
from ..io import atomic_dir, read_parquet
from ..training_resume import resume_dir_for

log = logging.getLogger(__name__)


def train_model(
    train_path: str,
    train_tables_path: str,
    dev_path: str,
    dev_tables_path: str,
    out_dir: str,
    premise: str,
    train: Mapping[str, Any],
    seed: int,
    pair_order: str = "premise_first",
    threads: int = 1,
) -> None:
    import torch

    torch.set_num_threads(max(1, threads))
    settings = training.TrainSettings.from_config(train, seed, pair_order)
    # The resume state lives beside the output until the checkpoint is in place, so a killed job
    # (preempted, out of time, its node gone) continues where it stopped when re-run.
    resume_dir = resume_dir_for(out_dir)
    with atomic_dir(out_dir) as tmp:
        training.train(
            read_parquet(train_path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(train_tables_path, schemas.TABLES)),
            read_parquet(dev_path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(dev_tables_path, schemas.TABLES)),
            premise,
            settings,
            tmp,
            resume_dir=resume_dir,
        )
    shutil.rmtree(resume_dir, ignore_errors=True)  # only once the checkpoint is in place
    log.info("checkpoint written to %s", out_dir)
