"""Rule init_model: a classifier head on a base encoder, untrained (for tests and smoke runs)."""

from __future__ import annotations

import logging
from pathlib import Path

from .. import checkpoints
from ..io import atomic_dir

log = logging.getLogger(__name__)


def init_model(base: str, out_dir: str, seed: int) -> None:
    out_dir = Path(out_dir)
    # Built in a temporary folder and renamed, so a killed job leaves no half-written checkpoint.
    with atomic_dir(out_dir) as tmp:
        checkpoints.init_classifier(base, tmp, seed)
    log.info("checkpoint written to %s", out_dir)
