"""Rules inoculate and select_inoculation (paper section 7, after Liu et al. 2019): a trained
premise + hypothesis model fine-tuned further on a few examples of a challenge set, at each learning
rate of the grid, and the rate with the best dev accuracy kept.

- `nested_subsets`: the 100, 200 and 300 challenge examples, the smaller a subset of the larger
  ("sub-sampling inclusively", as the paper and Liu et al. do).
- `fine_tune`: from the trained checkpoint (its own head), one learning rate, up to
  `max_epochs` epochs with early stopping on dev accuracy; the best epoch's weights are kept.

Seeded and deterministic on the CPU, like models/training.py. What the fine-tuned models' scores
show is outcomes.py's.
"""

from __future__ import annotations

import copy
import logging
import math
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import LABELS, errors, schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Table
from tabprobe.io import atomic_dir, read_parquet, write_json
from tabprobe.models.checkpoints import fingerprint, label_order, read_meta, require_base, save_checkpoint
from tabprobe.models.encoding import encode
from tabprobe.models.fine_tuning import Stepper, accuracy, length_grouped_batches, optimizer_and_schedule
from tabprobe.models.precision import LoadedModel, pick_device, resolve_precision
from tabprobe.models.premises import rendered_premises
from tabprobe.probes.curation import scored
from tabprobe.seeding import seeded_rng

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
    premise_selection: str | None = None  # as the model was trained (data/premise_selection.py)


def nested_subsets(available: int, sizes: Sequence[int], seed: int, name: str) -> dict[int, np.ndarray]:
    """Indices (sorted) of `size` of `available` examples for each size: prefixes of one seeded
    permutation, so each smaller set is a subset of each larger one. A size above `available`
    takes them all."""
    order = seeded_rng(seed, "inoculation-subsets", name).permutation(available)
    return {size: np.sort(order[:size]) for size in sorted(sizes)}


def _encode(records: Sequence[Mapping], premise: str, tokenizer, settings: InoculationSettings, order: list[int]):
    """Features and targets (the checkpoint's output index of each label) of examples that carry
    their own table (`infobox.PROBE_EXAMPLES` records; the label is `expected`, else `label`)."""
    hypotheses = [r["hypothesis"] for r in records]
    tables = [Table.from_arrow(r["table"]) for r in records]
    premises, _ = rendered_premises(
        tokenizer, tables, hypotheses, premise, settings.premise_selection, settings.max_length
    )
    encoded = encode(tokenizer, premises, hypotheses, settings.max_length, settings.pair_order)
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
    Records carry their table (`infobox.PROBE_EXAMPLES`: challenge examples, and dev examples
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
        "premise_selection": settings.premise_selection,
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


def challenge_records(members: Mapping[str, Mapping[str, pa.Table]], seed: int, split: str, table: str) -> list[dict]:
    """The challenge set of an experiment on a split: for each column of its paper table
    (label_preserved, label_flipped; `members` maps a column to its probes' examples), one
    example per gold example, sampled as the report's Table 4 / 7 samples them; full probe
    records (with their table), column by column."""
    from tabprobe.scoring.pooled_columns import pool_one_per_gold

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
    from tabprobe.seeding import select_examples

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
        premise_selection=model.get("premise_selection"),
        seed=seed,
    )
    with atomic_dir(out) as folder:
        fine_tune(checkpoint, train, dev, model["premise"], run, folder, label_map=model.get("label_map"))


def read_challenge(paths: Mapping[str, Mapping[str, str]], unverified_flips: str) -> dict[str, dict[str, Any]]:
    """column -> probe -> its examples whose labels may be used (tabprobe.probes.curation.scored)."""
    return {
        column: {
            probe: scored(read_parquet(path, infobox.PROBE_EXAMPLES), unverified_flips)
            for probe, path in probes.items()
        }
        for column, probes in paths.items()
    }


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
    """Rule inoculate: fine-tune on challenge examples at one learning rate (paper section 7): `checkpoint`
    fine-tuned on `size` challenge examples from train (`challenge`: column -> probe -> its train
    examples) at one learning rate, with early stopping on dev (paper section 7). Without
    `dev_tables_path`, `dev_path` is a probe's dev examples (a Defense's perturbed dev)."""
    import torch

    torch.set_num_threads(max(1, threads))

    pool = challenge_records(read_challenge(challenge, unverified_flips), seed, "train", table)
    chosen = nested_subsets(len(pool), sizes, seed, experiment)[size]
    if len(chosen) < size:
        log.warning(
            "%s: only %d challenge examples from train, fewer than %d; inoculating on all of them",
            experiment,
            len(chosen),
            size,
        )
    if dev_tables_path is None:
        dev = probe_dev_records(
            scored(read_parquet(dev_path, infobox.PROBE_EXAMPLES), unverified_flips),
            settings["dev_examples"],
            seed,
            experiment,
        )
    else:
        dev = dev_records(
            read_parquet(dev_path, schemas.EXAMPLES),
            infobox.load_tables(read_parquet(dev_tables_path, infobox.TABLES)),
            settings["dev_examples"],
            seed,
        )
    if not dev or not len(chosen):
        raise errors.TabprobeError(
            f"inoculation {experiment}: no {'dev' if not dev else 'train'} examples to fine-tune with; "
            "its probe makes none on that split (see its coverage file)"
        )
    fine_tune_into(out, checkpoint, [pool[i] for i in chosen], dev, learning_rate, settings, model, seed)


def select_inoculation(
    grid: Mapping[str, str], out: str, shared: Mapping[str, Mapping[str, str]] | None = None
) -> None:
    """Rule select_inoculation: keep this run's inoculated checkpoint at the learning rate with the best
    dev accuracy (`grid`: learning rate -> checkpoint, in the config's order; the first of equals). With
    `shared` (run -> its grid, every size and experiment of the selection: the paper's one rate used
    throughout), the rate with the best mean dev accuracy over those runs is kept."""
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
