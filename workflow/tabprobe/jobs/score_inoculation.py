"""Rule score_inoculation: paper Tables 9-12 for one inoculation experiment."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import inoculation, schemas, scoring
from ..checkpoints import read_meta
from ..config import inoculated_name
from ..io import read_parquet, write_json, write_parquet


def score_inoculation(
    experiment: str,
    table: str,
    models: Mapping[int, str],
    originals: Mapping[str, str],
    members: Mapping[str, Mapping[str, Mapping[str, str]]],
    predictions: Mapping[str, Mapping[str, Mapping[str, str]]],
    grids: Mapping[int, str],
    settings: Mapping[str, Any],
    seed: int,
    out: str,
    summary_out: str,
    unverified_flips: str = "exclude",
    challenge_originals: Mapping[str, str] | None = None,
    baselines: Mapping[str, str] | None = None,
) -> None:
    """Paper Tables 9-12 for one experiment: `models` size -> model name (0: before), `originals`
    split -> probe `original`'s examples, `members` challenge split (train, alpha1) -> column ->
    probe -> its examples there, `challenge_originals` challenge split -> probe `original`'s
    examples there (the paired Original column), `baselines` probe -> its alpha1 examples (a
    Defense's num_comparative), `predictions` model -> probe -> split -> predictions file,
    `grids` size -> the chosen checkpoint (for the learning rate and epochs of each inoculation)."""
    import pyarrow as pa

    read = {
        model: {
            (probe, split): dict(zip(t["uid"].to_pylist(), t["pred"].to_pylist()))
            for probe, by_split in per_probe.items()
            for split, path in by_split.items()
            for t in [read_parquet(path, schemas.PREDICTIONS)]
        }
        for model, per_probe in predictions.items()
    }
    scores = inoculation.score_experiment(
        experiment,
        table,
        models,
        {s: read_parquet(p, schemas.PROBE_EXAMPLES) for s, p in originals.items()},
        {split: inoculation.read_challenge(by_column, unverified_flips) for split, by_column in members.items()},
        read,
        scoring.ScoringSettings(**settings, seed=seed),
        {s: read_parquet(p, schemas.PROBE_EXAMPLES) for s, p in (challenge_originals or {}).items()},
        {probe: read_parquet(p, schemas.PROBE_EXAMPLES) for probe, p in (baselines or {}).items()},
    )
    # The model before inoculation is filed as size 0 of the experiment: its numbers here share
    # the samplings of the changes, unlike its own scores under its name.
    before = inoculated_name(models[0], experiment, 0)
    scores = scores.set_column(
        scores.schema.get_field_index("model"),
        "model",
        pa.array([before if m == models[0] else m for m in scores["model"].to_pylist()], pa.string()),
    )
    write_parquet(scores, out, schemas.SCORES)
    summary = {}
    for size, path in sorted(grids.items()):
        meta = read_meta(path)
        grid = json.loads((Path(path) / "inoculation_grid.json").read_text())
        summary[str(size)] = {
            "model": models[size],
            **grid,
            "best_epoch": meta["best_epoch"],
            "epochs_run": meta["epochs_run"],
            "train_examples": meta["train_examples"],
            "dev_accuracy_before": meta["dev_accuracy_before"],
            "max_epochs": meta["inoculation_settings"]["max_epochs"],
        }
    write_json(
        {"experiment": experiment, "table": table, "model": models[0], "before": before, "sizes": summary}, summary_out
    )
