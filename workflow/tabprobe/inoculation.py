"""Inoculation by fine-tuning (paper section 7, after Liu et al. 2019): a trained premise +
hypothesis model is fine-tuned further on a few examples of a challenge set, and its accuracy on
the challenge set and on the original test sets is compared with the model's before.

- `nested_subsets`: the 100, 200 and 300 challenge examples, the smaller a subset of the larger
  ("sub-sampling inclusively", as the paper and Liu et al. do).
- `fine_tune`: from the trained checkpoint (its own head), one learning rate, up to
  `max_epochs` epochs with early stopping on dev accuracy; the best epoch's weights are kept.
- `liu_outcome`: which of Liu et al.'s three outcomes a pair of accuracy changes shows, decided
  by their intervals.

Seeded and deterministic on the CPU, like training.train.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from . import LABELS, schemas
from .checkpoints import fingerprint, label_order, require_base, save_checkpoint
from .curation import scored
from .encoding import encode
from .io import atomic_dir, read_parquet
from .precision import LoadedModel, pick_device, resolve_precision
from .render import render
from .seeding import seeded_rng
from .table import Table
from .training import Stepper, accuracy, length_grouped_batches, optimizer_and_schedule

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InoculationSettings:
    learning_rate: float
    max_epochs: int = 30  # the paper's (the whole grid: config.FULL_INOCULATION)
    patience: int = 3  # stop after this many epochs without a better dev accuracy
    batch_size: int = 16
    max_length: int = 128
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    precision: str = "auto"
    pair_order: str = "premise_first"
    seed: int = 0


# The challenge test set of paper Tables 10 and 12: alpha1 without NEUTRAL. The tables also
# report train ("Train Set (w/o NEUTRAL)"), the split the challenge examples are drawn from
# (inoculation's `train_rows`).
CHALLENGE_SPLIT = "alpha1"


def nested_subsets(available: int, sizes: Sequence[int], seed: int, name: str) -> dict[int, np.ndarray]:
    """Indices (sorted) of `size` of `available` examples for each size: prefixes of one seeded
    permutation, so each smaller set is a subset of each larger one. A size above `available`
    takes them all."""
    order = seeded_rng(seed, "inoculation-subsets", name).permutation(available)
    return {size: np.sort(order[:size]) for size in sorted(sizes)}


def _encode(records: Sequence[Mapping], premise: str, tokenizer, settings: InoculationSettings, order: list[int]):
    """Features and targets (the checkpoint's output index of each label) of examples that carry
    their own table (`schemas.PROBE_EXAMPLES` records; the label is `expected`, else `label`)."""
    premises = [render(Table.from_arrow(r["table"]), premise) for r in records]
    encoded = encode(tokenizer, premises, [r["hypothesis"] for r in records], settings.max_length, settings.pair_order)
    targets = np.array([order[LABELS.index(r.get("expected") or r["label"])] for r in records], dtype=np.int64)
    return encoded, targets


def fine_tune(
    checkpoint: str | Path,
    train_records: Sequence[Mapping],
    dev_records: Sequence[Mapping],
    premise: str,
    settings: InoculationSettings,
    out_dir: str | Path,
    label_map: Mapping[str, str] | None = None,
) -> dict:
    """Fine-tune the classifier at `checkpoint` on `train_records` and write the weights of the
    epoch with the best dev accuracy (the first of equals) to `out_dir`; returns its metadata.
    Records carry their table (`schemas.PROBE_EXAMPLES`: challenge examples, and dev examples
    as probe `original` writes them)."""
    path, model, tokenizer, order = _load_seeded(checkpoint, settings.seed, label_map)
    device = pick_device()
    precision = resolve_precision(settings.precision, device)
    model.to(device)
    train_set = _encode(train_records, premise, tokenizer, settings, order)
    dev_set = _encode(dev_records, premise, tokenizer, settings, order)
    loaded = LoadedModel(model, tokenizer, [0, 1, 2], "", device)

    rng = seeded_rng(settings.seed, "inoculation-batches")
    total_steps = math.ceil(len(train_records) / settings.batch_size) * settings.max_epochs
    optimizer, scheduler = optimizer_and_schedule(
        model, settings.learning_rate, settings.weight_decay, settings.warmup_ratio, total_steps
    )
    step_on = Stepper(model, optimizer, scheduler, tokenizer.pad_token_id or 0, device, precision)

    model.eval()
    dev_before = round(accuracy(loaded, *dev_set, 64, precision), 2)
    log.info(
        "inoculating %s on %d examples at lr %g (dev accuracy before: %.2f%% on %d)",
        path,
        len(train_records),
        settings.learning_rate,
        dev_before,
        len(dev_records),
    )
    start = time.monotonic()
    dev_by_epoch, best_epoch = _train_with_early_stopping(loaded, step_on, rng, train_set, dev_set, settings, precision)
    meta = {
        "trained": True,
        "inoculated_from": str(checkpoint),
        "inoculated_from_fingerprint": fingerprint(path),
        "premise": premise,
        "pair_order": settings.pair_order,
        "label_map": {str(model.config.id2label[order[i]]): lab for i, lab in enumerate(LABELS)},
        "inoculation_settings": asdict(settings),
        "precision": precision,
        "device": device,
        "train_examples": len(train_records),
        "epochs_run": len(dev_by_epoch),
        "best_epoch": best_epoch,
        "dev_accuracy_before": dev_before,
        "dev_accuracy_by_epoch": dev_by_epoch,
        "dev_accuracy": dev_by_epoch[best_epoch - 1],
        "dev_examples": len(dev_records),
        "train_seconds": round(time.monotonic() - start, 1),  # wall time: the one field that differs run to run
    }
    save_checkpoint(model, tokenizer, out_dir, meta)
    log.info("kept epoch %d: dev accuracy %.2f%% (before: %.2f%%)", best_epoch, meta["dev_accuracy"], dev_before)
    return meta


def _load_seeded(checkpoint: str | Path, seed: int, label_map: Mapping[str, str] | None):
    """(path, model, tokenizer, label order) of the classifier at `checkpoint`, with torch's
    generator seeded for its dropout."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = require_base(str(checkpoint))
    torch.manual_seed(seed)  # dropout: the run repeats exactly
    model = AutoModelForSequenceClassification.from_pretrained(path, use_safetensors=True, trust_remote_code=False)
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    return path, model, tokenizer, label_order(model.config.id2label, label_map, str(path))


def _train_with_early_stopping(
    loaded: LoadedModel, step_on: Stepper, rng, train_set, dev_set, settings: InoculationSettings, precision: str
) -> tuple[list[float], int]:
    """Train epoch after epoch (batches from `rng`), measuring dev accuracy after each, until
    `patience` epochs bring no better one; leaves the model with the weights of the best epoch
    (the first of equals). Returns the dev accuracy of every epoch and the best epoch."""
    model, (encoded, targets) = loaded.model, train_set
    dev_by_epoch: list[float] = []
    best_epoch, best_state = 0, None
    for epoch in range(1, settings.max_epochs + 1):
        model.train()
        losses = [
            round(step_on([encoded.features[i] for i in batch_idx], targets[batch_idx]), 5)
            for batch_idx in length_grouped_batches(encoded.lengths(), settings.batch_size, rng)
        ]
        model.eval()
        dev_by_epoch.append(round(accuracy(loaded, *dev_set, 64, precision), 2))
        improved = best_state is None or dev_by_epoch[-1] > dev_by_epoch[best_epoch - 1]
        if improved:
            best_epoch, best_state = epoch, copy.deepcopy(model.state_dict())
        log.info(
            "epoch %d / %d: mean loss %.4f, dev accuracy %.2f%%%s",
            epoch,
            settings.max_epochs,
            float(np.mean(losses)),
            dev_by_epoch[-1],
            " (best so far)" if improved else "",
        )
        if epoch - best_epoch >= settings.patience:
            log.info("no better dev accuracy for %d epochs: stopping early", settings.patience)
            break
    model.load_state_dict(best_state)
    return dev_by_epoch, best_epoch


def choose_learning_rate(dev: Mapping[str, Mapping[str, float]], rates: Sequence[str]) -> tuple[str, dict[str, float]]:
    """The learning rate to keep and the mean dev accuracy of each rate over the runs in `dev`
    (run -> rate -> its best epoch's dev accuracy): the best mean, the first of equals in
    `rates` order (the config's). With one run this is that run's best rate ("per_size"); with
    every size and experiment it is the paper's one rate "used throughout" ("shared": section 7
    tried 1e-4, 5e-5 and 1e-5, and kept the one whose models did best on the development set)."""
    means = {lr: round(float(np.mean([by_rate[lr] for by_rate in dev.values()])), 4) for lr in rates}
    return max(rates, key=lambda lr: (means[lr], -list(rates).index(lr))), means


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


def challenge_records(members: Mapping[str, Mapping[str, pa.Table]], seed: int, split: str, table: str) -> list[dict]:
    """The challenge set of an experiment on a split: for each column of its paper table
    (label_preserved, label_flipped; `members` maps a column to its probes' examples), one
    example per gold example, sampled as the report's Table 4 / 7 samples them; full probe
    records (with their table), column by column."""
    from .scoring import pool_one_per_gold

    out = []
    for column in sorted(members):
        tables = members[column]
        if not tables:
            continue
        full = {probe: {r["uid"]: r for r in t.to_pylist()} for probe, t in tables.items()}
        out += [
            full[probe][record["uid"]] for probe, record in pool_one_per_gold(dict(tables), seed, column, split, table)
        ]
    return out


def dev_records(examples: pa.Table, tables: Mapping[str, Table], limit: int | None, seed: int) -> list[dict]:
    """Dev examples (a seeded subset of `limit`) as records carrying their table, for early stopping."""
    from .perturb import select_examples

    return [
        {**r, "table": tables[r["table_id"]].to_arrow()}
        for r in select_examples(examples, limit, seed, "dev").to_pylist()
    ]


def probe_dev_records(examples: pa.Table, limit: int | None, seed: int, name: str) -> list[dict]:
    """A probe's dev examples (a seeded subset of `limit`, in file order) as records with their
    table and expected label: the Defense setting stops early on the perturbed validation split
    (numerical-qa-robustness Table 2: "Validate on val*")."""
    records = examples.to_pylist()
    if limit is None:
        return records
    return [records[i] for i in nested_subsets(len(records), [limit], seed, f"{name}-dev")[limit]]


# ---------------------------------------------------------------- scores (paper Tables 9-12)


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
        from .scoring import Scorer, scorer_for

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
        from .scoring import Scorer, pool_one_per_gold

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
        from .scoring import Scorer

        keys = [((probe, CHALLENGE_SPLIT), uid) for uid in examples["uid"].to_pylist()]
        expected = np.array(examples["expected"].to_pylist(), dtype=object)
        scorer = Scorer(len(keys), self.settings, "inoculation", self.experiment, probe)
        self.score(probe, CHALLENGE_SPLIT, "all", keys, expected, scorer)


def _change(scorer, difference: np.ndarray) -> dict:
    """Mean paired change in accuracy (points) with its interval: Scorer.stat computes ratios in
    percent, so a per-example difference of -1/0/+1 over a count of examples is the change."""
    return scorer.stat(difference, np.ones(len(difference)))


def fine_tune_into(
    out: str,
    checkpoint: str,
    train: list[dict],
    dev: list[dict],
    learning_rate: float,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    seed: int,
) -> None:
    """fine_tune with a rule's settings (epochs, patience, batch size) and the model's input
    settings, written atomically to `out` (inoculation and controlled variance)."""
    run = InoculationSettings(
        learning_rate=learning_rate,
        max_epochs=settings["max_epochs"],
        patience=settings["patience"],
        batch_size=settings["batch_size"],
        max_length=model["max_length"],
        precision=model["precision"],
        pair_order=model["pair_order"],
        seed=seed,
    )
    with atomic_dir(out) as folder:
        fine_tune(checkpoint, train, dev, model["premise"], run, folder, label_map=model.get("label_map"))


def read_challenge(paths: Mapping[str, Mapping[str, str]], unverified_flips: str) -> dict[str, dict[str, Any]]:
    """column -> probe -> its examples whose labels may be used (tabprobe.curation.scored)."""
    return {
        column: {
            probe: scored(read_parquet(path, schemas.PROBE_EXAMPLES), unverified_flips)
            for probe, path in probes.items()
        }
        for column, probes in paths.items()
    }
