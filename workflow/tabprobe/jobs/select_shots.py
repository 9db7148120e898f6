"""Rule select_shots: the k training examples a causal LM's prompts start with."""

from __future__ import annotations

import logging

from .. import schemas, shot_selection
from ..io import read_parquet

log = logging.getLogger(__name__)


def select_shots(examples: str, tables: str, out: str, shots: int, seed: int) -> None:
    chosen = shot_selection.select_shots(
        read_parquet(examples, schemas.EXAMPLES), read_parquet(tables, schemas.TABLES), shots, seed
    )
    shot_selection.write_shots(chosen, out)
    log.info("%d shots from train: %s", len(chosen), ", ".join(f"{s['uid']} ({s['label']})" for s in chosen))
