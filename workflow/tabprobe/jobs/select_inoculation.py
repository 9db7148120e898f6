"""Rule select_inoculation: keep the learning rate with the best dev accuracy."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..io import atomic_dir, write_json
from ..models import read_meta

log = logging.getLogger(__name__)


def select_inoculation(grid: Mapping[str, str], out: str) -> None:
    """Keep the inoculated checkpoint of the learning rate with the best dev accuracy (`grid`:
    learning rate -> checkpoint, in the config's order; the first of equals)."""
    dev = {lr: read_meta(path)["dev_accuracy"] for lr, path in grid.items()}
    best = max(dev, key=lambda lr: (dev[lr], -list(grid).index(lr)))
    with atomic_dir(out) as folder:
        shutil.copytree(grid[best], folder, dirs_exist_ok=True)
        write_json(
            {"learning_rate": float(best), "dev_accuracy_by_learning_rate": {k: dev[k] for k in grid}},
            Path(folder) / "inoculation_grid.json",
        )
    log.info("best learning rate %s (dev accuracy %.2f%%) of %s", best, dev[best], dev)
