"""Rule select_inoculation: keep the learning rate with the best dev accuracy."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..checkpoints import read_meta
from ..inoculation import choose_learning_rate
from ..io import atomic_dir, write_json

log = logging.getLogger(__name__)


def select_inoculation(
    grid: Mapping[str, str], out: str, shared: Mapping[str, Mapping[str, str]] | None = None
) -> None:
    """Keep this run's inoculated checkpoint at the learning rate with the best dev accuracy
    (`grid`: learning rate -> checkpoint, in the config's order; the first of equals). With
    `shared` (run -> its grid, every size and experiment of the selection: the paper's one rate
    used throughout), the rate with the best mean dev accuracy over those runs is kept."""
    dev = {lr: read_meta(path)["dev_accuracy"] for lr, path in grid.items()}
    runs = {
        run: {lr: read_meta(path)["dev_accuracy"] for lr, path in by_rate.items()}
        for run, by_rate in (shared or {}).items()
    }
    best, means = choose_learning_rate(runs or {"this": dev}, list(grid))
    with atomic_dir(out) as folder:
        shutil.copytree(grid[best], folder, dirs_exist_ok=True)
        write_json(
            {
                "learning_rate": float(best),
                "dev_accuracy_by_learning_rate": {k: dev[k] for k in grid},
                "selection": "shared" if shared else "per_size",
                # The criterion: this run's dev accuracies (per_size), or their mean over the runs.
                "mean_dev_accuracy_by_learning_rate": means if shared else None,
                "selected_over": sorted(shared) if shared else None,
            },
            Path(folder) / "inoculation_grid.json",
        )
    log.info(
        "kept learning rate %s (%s selection; dev accuracy by rate %s, mean %s)",
        best,
        "shared" if shared else "per_size",
        dev,
        means,
    )
