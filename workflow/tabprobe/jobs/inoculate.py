"""Rule inoculate: fine-tune on challenge examples at one learning rate (paper section 7)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from .. import errors, infotabs, inoculation, schemas
from ..curation import scored
from ..io import read_parquet

log = logging.getLogger(__name__)


def inoculate(
    checkpoint: str,
    challenge: Mapping[str, Mapping[str, str]],
    dev_path: str,
    dev_tables_path: str | None,
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
    probe -> its train examples) at one learning rate, with early stopping on dev (paper section 7).
    Without `dev_tables_path`, `dev_path` is a probe's dev examples (a Defense's perturbed dev)."""
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
    if dev_tables_path is None:
        dev = inoculation.probe_dev_records(
            scored(read_parquet(dev_path, schemas.PROBE_EXAMPLES), unverified_flips),
            settings["dev_examples"],
            seed,
            experiment,
        )
    else:
        dev = inoculation.dev_records(
            read_parquet(dev_path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(dev_tables_path, schemas.TABLES)),
            settings["dev_examples"],
            seed,
        )
    if not dev or not len(chosen):
        raise errors.TabprobeError(
            f"inoculation {experiment}: no {'dev' if not dev else 'train'} examples to fine-tune with; "
            "its probe makes none on that split (see its coverage file)"
        )
    inoculation.fine_tune_into(out, checkpoint, [pool[i] for i in chosen], dev, learning_rate, settings, model, seed)
