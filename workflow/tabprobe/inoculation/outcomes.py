"""Rule score_inoculation: the inoculated models' accuracy on the challenge set and on the
original test sets against the model's before (paper Tables 10 and 12), and `liu_outcome`: which of
Liu et al.'s three outcomes a pair of accuracy changes shows, decided by their intervals."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import schemas
from tabprobe.config import inoculated_name
from tabprobe.config.names import CHALLENGE_SPLIT
from tabprobe.data.infobox import table as infobox
from tabprobe.inoculation.inoculate import read_challenge
from tabprobe.io import read_parquet, write_json, write_parquet
from tabprobe.models.checkpoints import read_meta
from tabprobe.scoring import probe_scores as scoring

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """A paired accuracy change (inoculated minus before), mean and interval, in points."""

    mean: float
    low: float
    high: float

    @property
    def up(self) -> bool:
        return self.low > 0

    @property
    def down(self) -> bool:
        return self.high < 0


OUTCOMES = {
    1: "Outcome 1: the gap closes (the challenge set improves, the original test set does not degrade)",
    2: "Outcome 2: nothing changes (neither set moves beyond its interval)",
    3: "Outcome 3: the challenge set improves while the original test set degrades",
    0: "none of Liu et al.'s three outcomes",
}


def liu_outcome(original: Change, challenge: Change) -> tuple[int, str]:
    """Liu et al.'s outcome for the change on the original test set and on the challenge set,
    as the paper reads its Tables 9-12; a change counts only where its interval excludes zero.
    Returns the outcome (0: none of the three) and the sentence that decides it."""

    def describe(name: str, change: Change) -> str:
        moved = "up" if change.up else "down" if change.down else "unchanged"
        return f"{name} {change.mean:+.2f} [{change.low:+.2f}, {change.high:+.2f}] ({moved})"

    evidence = f"{describe('challenge', challenge)}; {describe('original', original)}"
    if challenge.up and not original.down:
        outcome = 1
    elif challenge.up and original.down:
        outcome = 3
    elif not challenge.up and not challenge.down and not original.up and not original.down:
        outcome = 2
    else:
        outcome = 0
    return outcome, f"{OUTCOMES[outcome]}: {evidence}"


# ---------------------------------------------------------------- challenge and dev examples


def score_experiment(
    experiment: str,
    table: str,
    models: Mapping[int, str],
    originals: Mapping[str, pa.Table],
    members: Mapping[str, Mapping[str, Mapping[str, pa.Table]]],
    predictions: Mapping[str, Mapping[tuple[str, str], Mapping[str, str]]],
    settings,
    challenge_originals: Mapping[str, pa.Table] | None = None,
    baselines: Mapping[str, pa.Table] | None = None,
) -> pa.Table:
    """Accuracy of the model before (size 0) and after each inoculation (`models`: size -> model
    name), and each inoculated model's paired change from before (the same examples and
    samplings: `accuracy_change`, in points). `predictions[model][(probe, split)]` maps uid ->
    prediction. Scored:

    - the original splits (`originals`: probe `original`'s examples per split; paper Tables 9
      and 11), filed under probe "original" (and on alpha1 also without NEUTRAL, label "EC");
    - each challenge split (`members`: split -> column -> probe -> examples; paper Tables 10
      and 12 report train, what the model was fine-tuned on, and alpha1): each pooled column
      ("<table>:<column>"), both together ("<table>:challenge", the set the outcome is judged
      on), and "<table>:original", label "EC": the gold examples that split's challenge set was
      made from, without NEUTRAL, from `challenge_originals` (probe `original`'s examples
      there). Paired originals, as the paper's column: its base model scores 68.94 on Table
      10's alpha1 originals and 71.99 on Table 12's, two subsets of one split;
    - `baselines` (probe -> its alpha1 examples), against their expected labels (Defense: the
      comparisons that num_noise, num_distribution and num_logic perturb)."""
    scores = _ExperimentScores(experiment, table, models, predictions, settings)
    for split, examples in originals.items():
        scores.original(split, examples)
    for split in sorted(members):
        scores.challenge(split, members[split], (challenge_originals or {}).get(split))
    for probe, examples in sorted((baselines or {}).items()):
        scores.baseline(probe, examples)
    return pa.Table.from_pylist(scores.rows, schema=schemas.SCORES)


class _ExperimentScores:
    """The score rows of one experiment (`score_experiment`), added set by set."""

    def __init__(self, experiment: str, table: str, models: Mapping[int, str], predictions, settings):
        self.experiment, self.table, self.models, self.predictions = experiment, table, models, predictions
        self.settings = settings
        self.rows: list[dict] = []

    def score(self, probe: str, split: str, label: str, keys: list[tuple[str, str]], expected: np.ndarray, scorer):
        """Rows of each model's accuracy on `keys` (((probe, split), uid) pairs) against
        `expected`, and of each inoculated model's paired change from the model before."""
        before = None
        for size in sorted(self.models):
            model = self.models[size]
            pred = np.array([self.predictions[model][key][uid] for key, uid in keys], dtype=object)
            correct = (pred == expected).astype(np.float64)
            ones = np.ones(len(correct))
            common = {"model": model, "probe": probe, "split": split, "label": label}
            self.rows.append({**common, "statistic": "accuracy", **scorer.stat(correct, ones)})
            if before is None:
                before = correct
            else:
                self.rows.append({**common, "statistic": "accuracy_change", **_change(scorer, correct - before)})

    def original(self, split: str, examples: pa.Table) -> None:
        """An original split (probe `original`'s examples), on alpha1 also without NEUTRAL."""
        from tabprobe.scoring.probe_scores import Scorer, scorer_for

        uids, gold = examples["uid"].to_pylist(), np.array(examples["label"].to_pylist(), dtype=object)
        keys = [(("original", split), uid) for uid in uids]
        scorer = Scorer(len(uids), self.settings, "inoculation", self.experiment, split)
        self.score("original", split, "all", keys, gold, scorer)
        if split == CHALLENGE_SPLIT:
            ec = gold != "N"
            ec_scorer = scorer_for(ec, scorer, self.settings, "inoculation", self.experiment, split, "EC")
            self.score("original", split, "EC", [k for k, keep in zip(keys, ec) if keep], gold[ec], ec_scorer)

    def challenge(self, split: str, columns: Mapping[str, Mapping[str, pa.Table]], gold: pa.Table | None) -> None:
        """The challenge set on a split: each pooled column, both together, and (given `gold`,
        probe `original`'s examples on the split) the gold examples it was made from."""
        from tabprobe.scoring.pooled_columns import pool_one_per_gold
        from tabprobe.scoring.probe_scores import Scorer

        settings, experiment, table = self.settings, self.experiment, self.table
        challenge_keys, challenge_expected, gold_uids = [], [], set()
        for column in sorted(columns):
            if not columns[column]:
                continue
            chosen = pool_one_per_gold(dict(columns[column]), settings.seed, column, split, table)
            keys = [((probe, split), record["uid"]) for probe, record in chosen]
            expected = np.array([record["expected"] for _, record in chosen], dtype=object)
            scorer = Scorer(len(keys), settings, "inoculation", experiment, column, split)
            self.score(f"{table}:{column}", split, "all", keys, expected, scorer)
            challenge_keys += keys
            challenge_expected += list(expected)
            gold_uids.update(record["orig_uid"] for _, record in chosen)
        if not challenge_keys:
            return
        scorer = Scorer(len(challenge_keys), settings, "inoculation", experiment, "challenge", split)
        expected = np.array(challenge_expected, dtype=object)
        self.score(f"{table}:challenge", split, "all", challenge_keys, expected, scorer)
        if gold is not None:
            paired = [
                r for r in gold.select(["uid", "label"]).to_pylist() if r["uid"] in gold_uids and r["label"] != "N"
            ]
            scorer = Scorer(len(paired), settings, "inoculation", experiment, "challenge-original", split)
            keys = [(("original", split), r["uid"]) for r in paired]
            expected = np.array([r["label"] for r in paired], dtype=object)
            self.score(f"{table}:original", split, "EC", keys, expected, scorer)

    def baseline(self, probe: str, examples: pa.Table) -> None:
        """A probe's alpha1 examples against their expected labels (Defense)."""
        from tabprobe.scoring.probe_scores import Scorer

        keys = [((probe, CHALLENGE_SPLIT), uid) for uid in examples["uid"].to_pylist()]
        expected = np.array(examples["expected"].to_pylist(), dtype=object)
        scorer = Scorer(len(keys), self.settings, "inoculation", self.experiment, probe)
        self.score(probe, CHALLENGE_SPLIT, "all", keys, expected, scorer)


def _change(scorer, difference: np.ndarray) -> dict:
    """Mean paired change in accuracy (points) with its interval: Scorer.stat computes ratios in
    percent, so a per-example difference of -1/0/+1 over a count of examples is the change."""
    return scorer.stat(difference, np.ones(len(difference)))


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
    """Rule score_inoculation: paper Tables 9-12 for one inoculation experiment: `models` size -> model
    name (0: before), `originals` split -> probe `original`'s examples, `members` challenge split
    (train, alpha1) -> column -> probe -> its examples there, `challenge_originals` challenge split ->
    probe `original`'s examples there (the paired Original column), `baselines` probe -> its alpha1
    examples (a Defense's num_comparative), `predictions` model -> probe -> split -> predictions file,
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
    scores = score_experiment(
        experiment,
        table,
        models,
        {s: read_parquet(p, infobox.PROBE_EXAMPLES) for s, p in originals.items()},
        {split: read_challenge(by_column, unverified_flips) for split, by_column in members.items()},
        read,
        scoring.ScoringSettings(**settings, seed=seed),
        {s: read_parquet(p, infobox.PROBE_EXAMPLES) for s, p in (challenge_originals or {}).items()},
        {probe: read_parquet(p, infobox.PROBE_EXAMPLES) for probe, p in (baselines or {}).items()},
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
