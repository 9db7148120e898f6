"""Rule inoculate: fine-tune on challenge examples at one learning rate (paper section 7)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from .. import infotabs, inoculation, schemas
from ..io import read_parquet

log = logging.getLogger(__name__)


def inoculate(
    checkpoint: str,
    challenge: Mapping[str, Mapping[str, str]],
    dev_path: str,
    dev_tables_path: str,
    out: str,
    experiment: str,
    table: str,
    size: int,
    sizes: Sequence[int],
    learning_rate: float,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    seed: int,
    threads: int = 1,
    unverified_flips: str = "exclude",
) -> None:
    """Fine-tune `checkpoint` on `size` challenge examples from train (`challenge`: column ->
    probe -> its train examples) at one learning rate, with early stopping on dev (paper section 7)."""
    import torch

    torch.set_num_threads(max(1, threads))

    pool = inoculation.challenge_records(inoculation.read_challenge(challenge, unverified_flips), seed, "train", table)
    chosen = inoculation.nested_subsets(len(pool), sizes, seed, experiment)[size]
    if len(chosen) < size:
        log.warning(
            "%s: only %d challenge examples from train, fewer than %d; inoculating on all of them",
            experiment,
            len(chosen),
            size,
        )
    dev = inoculation.dev_records(
        read_parquet(dev_path, schemas.EXAMPLES),
        infotabs.load_tables(read_parquet(dev_tables_path, schemas.TABLES)),
        settings["dev_examples"],
        seed,
    )
    inoculation.fine_tune_into(out, checkpoint, [pool[i] for i in chosen], dev, learning_rate, settings, model, seed)
