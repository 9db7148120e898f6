"""Fine-tuning a base encoder into a classifier on a dataset's train split: 3-way NLI (E, N, C)
on a dataset of three labels, or two-way (E, C) where the dataset has two (a fact-checking one).

Seeded and deterministic on the CPU: the subset of training examples, the head's initial
weights, the batch order and dropout all come from the seed. Batches group examples of similar
length (shuffled in chunks, then sorted within a chunk), which on a CPU saves most of the
padding a plain shuffle would compute.

Resumable: at each epoch end (and every few minutes of training) the whole training state is
saved beside the checkpoint folder (tabprobe.models.training_resume), so a job killed midway
(preemption, a time limit, a node crash) continues where the last state left off and writes the
very checkpoint an uninterrupted run writes (on the same machine and thread count).
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from tqdm import tqdm

from tabprobe import LABELS, schemas
from tabprobe.data.datasets import dataset_of_training
from tabprobe.data.infobox.table import Table
from tabprobe.data.tables import TABLES_SCHEMAS, load_tables
from tabprobe.errors import ModelError
from tabprobe.io import atomic_dir, read_parquet
from tabprobe.models.checkpoints import LABEL_NAMES, new_classifier, read_meta, save_checkpoint, trained_head
from tabprobe.models.encoding import encode, pairs_only
from tabprobe.models.fine_tuning import Stepper, accuracy, length_grouped_batches, optimizer_and_schedule
from tabprobe.models.precision import LoadedModel, pick_device, resolve_precision
from tabprobe.models.premises import rendered_premises
from tabprobe.models.training_resume import ResumeStore, resume_dir_for, resume_key
from tabprobe.seeding import seeded_rng

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainSettings:
    base: str
    examples: int | None = None  # None: all of train
    epochs: int = 1
    max_length: int = 256
    batch_size: int = 16
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    dev_examples: int | None = None  # None: all of dev
    precision: str = "auto"
    pair_order: str = "premise_first"
    seed: int = 0
    accumulation_steps: int = 1  # each batch_size batch runs as this many micro-batches
    premise_selection: str | None = None  # data/premise_selection.py's rule; None: the whole table

    @classmethod
    def from_config(cls, train: Mapping[str, Any], seed: int, pair_order: str = "premise_first") -> TrainSettings:
        return cls(seed=seed, pair_order=pair_order, **train)


def _features(
    examples: pa.Table,
    tables: Mapping[str, Table],
    premise: str,
    tokenizer,
    settings: TrainSettings,
    labels: Sequence[str],
    split: str,
    pairs_always: bool = False,
):
    """The examples' features and targets: each label's index in `labels`, the head's outputs.
    `pairs_always`: as `encode`'s, for a model that needs every example laid out as a pair."""
    records = examples.select(["uid", "table_id", "hypothesis", "label"]).to_pylist()
    strays = [r for r in records if r["label"] not in labels]
    if strays:
        raise ModelError(
            f"{split} example {strays[0]['uid']}{f' (and {len(strays) - 1} more)' if len(strays) > 1 else ''} has "
            f"label {strays[0]['label']!r}, "
            f"which the head being trained has no output for (its labels: {', '.join(labels)}); train with the "
            "dataset's own labels (tabprobe.data.datasets.get_dataset(name).labels) or drop those examples"
        )
    hypotheses = [r["hypothesis"] for r in records]
    premises, narrowed = rendered_premises(
        tokenizer,
        [tables[r["table_id"]] for r in records],
        hypotheses,
        premise,
        settings.premise_selection,
        settings.max_length,
    )
    if narrowed:
        log.info(
            "%s: premise selection %s left rows out of %d of %d premises",
            split,
            settings.premise_selection,
            narrowed,
            len(records),
        )
    encoded = encode(tokenizer, premises, hypotheses, settings.max_length, settings.pair_order, pairs_always)
    targets = np.array([labels.index(r["label"]) for r in records], dtype=np.int64)
    return encoded, targets


# How often a resume state is saved besides every epoch end. Where a state is saved does not
# change the result, only how much work a kill loses. A MiniLM-L6 state (weights and AdamW's two
# moments, 273 MB) is written in 0.2-0.5 s on the project machines; a RoBERTa-large one is ~4 GB.
SAVE_EVERY_SECONDS = 600.0


@dataclass(frozen=True)
class TrainingData:
    """The train and dev examples a run uses (seeded subsets), encoded, with their label indices."""

    subset: pa.Table
    encoded: Any
    labels: np.ndarray
    dev_subset: pa.Table
    dev_encoded: Any
    dev_labels: np.ndarray


class TrainingRun:
    """A training past its set-up: the batch plan, the optimiser and its schedule, and what a
    resume state holds besides them (the loss of every step, the dev accuracy of every epoch, the
    training time of earlier, killed attempts)."""

    def __init__(self, model, tokenizer, data: TrainingData, settings: TrainSettings, device: str, precision: str):
        # The batch order of every epoch is planned up front from the seed alone, so a resumed run
        # plans the same batches again instead of saving the generator's state.
        rng = seeded_rng(settings.seed, "training-batches")
        lengths = data.encoded.lengths()
        self.epochs = [length_grouped_batches(lengths, settings.batch_size, rng) for _ in range(settings.epochs)]
        self.total_steps = sum(len(e) for e in self.epochs)
        self.optimizer, self.scheduler = optimizer_and_schedule(
            model, settings.learning_rate, settings.weight_decay, settings.warmup_ratio, self.total_steps
        )
        self.step_on = Stepper(
            model,
            self.optimizer,
            self.scheduler,
            tokenizer.pad_token_id or 0,
            device,
            precision,
            settings.accumulation_steps,
        )
        # Dev accuracy compares the head's outputs with the targets, both in the head's own order.
        self.loaded = LoadedModel(model, tokenizer, list(range(model.config.num_labels)), "", device)
        self.model, self.data, self.device, self.precision = model, data, device, precision
        self.store: ResumeStore | None = None
        self.history: list[dict] = []
        self.dev_by_epoch: list[float] = []
        self.seconds_before = 0.0  # training time of earlier, killed attempts
        self.start = self.last_save = 0.0

    def resume_from(self, store: ResumeStore) -> None:
        """Continue from the state in `store` where it holds one of these inputs; save states there."""
        import torch

        self.store = store
        saved = store.load()
        if not saved:
            return
        self.model.load_state_dict(saved["model"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.scheduler.load_state_dict(saved["scheduler"])
        self.step_on.load_state_dict(saved.get("grad_scaler"))
        torch.set_rng_state(saved["torch_rng"])
        if saved.get("cuda_rng") is not None:
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
        self.history, self.dev_by_epoch = saved["history"], saved["dev_by_epoch"]
        self.seconds_before = saved["train_seconds"]
        last_epoch = self.history[-1]["epoch"] if self.history else 0
        where = "its end" if len(self.dev_by_epoch) == last_epoch else "mid-epoch"
        log.info(
            "resumed from epoch %d (%s), step %d of %d, with %.0f s of training before, from %s",
            last_epoch,
            where,
            len(self.history),
            self.total_steps,
            self.seconds_before,
            store.path,
        )

    def save_state(self, why: str) -> None:
        import torch

        began = time.monotonic()
        self.store.save(
            {
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
                "grad_scaler": self.step_on.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state_all() if self.device.startswith("cuda") else None,
                "history": self.history,
                "dev_by_epoch": self.dev_by_epoch,
                "train_seconds": self.seconds_before + (began - self.start),
            }
        )
        self.last_save = time.monotonic()
        log.info(
            "saved resume state (%s, step %d of %d) in %.1f s",
            why,
            len(self.history),
            self.total_steps,
            self.last_save - began,
        )

    def run(self, save_every_seconds: float | None, save_every_steps: int | None) -> float:
        """Train the epochs (and steps) the resume state did not hold, measure dev accuracy after
        each; the training time in seconds, earlier attempts included."""
        self.start = time.monotonic()
        self.last_save = self.start
        self.model.train()
        step = 0  # number of the current batch, counted over all epochs
        with tqdm(
            total=self.total_steps,
            initial=len(self.history),
            desc="training",
            unit="batch",
            file=sys.stderr,
            mininterval=10,
            ascii=True,
        ) as bar:
            for epoch, batches in enumerate(self.epochs):
                step = self._train_epoch(epoch, batches, step, bar, save_every_seconds, save_every_steps)
                if len(self.dev_by_epoch) > epoch:
                    continue  # this epoch's dev accuracy came with the resume state
                self._evaluate(epoch)
                if self.store:
                    self.save_state(f"end of epoch {epoch + 1}")
        return self.seconds_before + time.monotonic() - self.start

    def _train_epoch(self, epoch: int, batches, step: int, bar, save_every_seconds, save_every_steps) -> int:
        """One optimiser step per batch of epoch `epoch` not done before a kill, saving resume
        states in between as often as asked; the step count after the epoch."""
        history, encoded, labels = self.history, self.data.encoded, self.data.labels
        for position, batch_idx in enumerate(batches):
            step += 1
            if step <= len(history):
                continue  # done before the kill, restored from the resume state
            loss = self.step_on([encoded.features[i] for i in batch_idx], labels[batch_idx])
            history.append(
                {
                    "step": len(history) + 1,
                    "epoch": epoch + 1,
                    "loss": round(loss, 5),
                    "lr": self.scheduler.get_last_lr()[0],
                }
            )
            bar.update(1)
            if len(history) % 50 == 0:
                recent = np.mean([h["loss"] for h in history[-50:]])
                log.info(
                    "step %d / %d, epoch %d, loss %.4f (last 50 steps)",
                    len(history),
                    self.total_steps,
                    epoch + 1,
                    recent,
                )
            last_of_epoch = position == len(batches) - 1
            if (
                self.store
                and not last_of_epoch
                and (
                    (save_every_steps and len(history) % save_every_steps == 0)
                    or (save_every_seconds is not None and time.monotonic() - self.last_save >= save_every_seconds)
                )
            ):
                self.save_state(f"epoch {epoch + 1}, {position + 1} of {len(batches)} batches")
        return step

    def _evaluate(self, epoch: int) -> None:
        """Dev accuracy after epoch `epoch`."""
        # Evaluation runs under inference_mode in eval mode: no dropout, no random numbers
        # drawn, so it does not move the training run off its seeded course.
        data = self.data
        self.model.eval()
        self.dev_by_epoch.append(round(accuracy(self.loaded, data.dev_encoded, data.dev_labels, 64, self.precision), 2))
        self.model.train()
        epoch_losses = [h["loss"] for h in self.history if h["epoch"] == epoch + 1]
        log.info(
            "epoch %d / %d done at step %d / %d: mean loss %.4f, dev accuracy %.2f%% on %d examples",
            epoch + 1,
            len(self.epochs),
            len(self.history),
            self.total_steps,
            float(np.mean(epoch_losses)) if epoch_losses else float("nan"),
            self.dev_by_epoch[-1],
            data.dev_subset.num_rows,
        )


def train(
    train_examples: pa.Table,
    train_tables: Mapping[str, Table],
    dev_examples: pa.Table,
    dev_tables: Mapping[str, Table],
    premise: str,
    settings: TrainSettings,
    out_dir: str | Path,
    resume_dir: str | Path | None = None,
    save_every_seconds: float | None = SAVE_EVERY_SECONDS,
    save_every_steps: int | None = None,
    labels: Sequence[str] = LABELS,
    base_model: str | None = None,
) -> dict:
    """Fine-tune, evaluate on dev after each epoch, and write a checkpoint directory; returns its
    metadata. The head has one output per label in `labels` (the dataset's: E, N, C, or E, C).
    `base_model`: the name of the run's model whose checkpoint `settings.base` is, for the record
    (a head trained for `labels` is kept and trained on: config/trained_from.py).

    With `resume_dir`, the training state (weights, optimizer, LR schedule, torch RNG, position,
    loss history and dev accuracy per epoch) is saved there after every epoch, every
    `save_every_seconds` of training and every `save_every_steps` steps; a run with the same
    inputs continues from the latest state. The caller removes the folder once the checkpoint is
    in place.
    """
    from tabprobe.seeding import select_examples

    labels = tuple(labels)
    model, tokenizer = new_classifier(settings.base, settings.seed, labels)
    device = pick_device()
    precision = resolve_precision(settings.precision, device)
    model.to(device)
    subset = select_examples(train_examples, settings.examples, settings.seed, "train")
    pairs = pairs_only(model.config)  # encoded as inference will encode them (classifiers.infer)
    encoded, targets = _features(subset, train_tables, premise, tokenizer, settings, labels, "train", pairs)
    dev_subset = select_examples(dev_examples, settings.dev_examples, settings.seed, "dev")
    dev_encoded, dev_targets = _features(dev_subset, dev_tables, premise, tokenizer, settings, labels, "dev", pairs)
    data = TrainingData(subset, encoded, targets, dev_subset, dev_encoded, dev_targets)
    log.info(
        "training on %d of %d train examples (%d premises cut to %d tokens), %s on %s",
        data.subset.num_rows,
        train_examples.num_rows,
        data.encoded.truncated,
        settings.max_length,
        precision,
        device,
    )
    run = TrainingRun(model, tokenizer, data, settings, device, precision)
    if resume_dir is not None:
        features = (data.encoded.features, data.labels, data.dev_encoded.features, data.dev_labels)
        # The head's labels shape its weights: a state saved for other labels is not resumed from.
        key_settings = {**asdict(settings), "labels": list(labels)}
        run.resume_from(ResumeStore(resume_dir, resume_key(key_settings, premise, device, precision, *features)))
    train_seconds = run.run(save_every_seconds, save_every_steps)
    model.eval()
    dev_accuracy = run.dev_by_epoch[-1]  # measured after every epoch (the schema asks for at least one)
    log.info(
        "dev accuracy %.2f%% on %d examples; training took %.0f s",
        dev_accuracy,
        data.dev_subset.num_rows,
        train_seconds,
    )
    meta = checkpoint_meta(run, premise, settings, train_examples.num_rows, train_seconds, labels, base_model)
    save_checkpoint(model, tokenizer, out_dir, meta)
    with (Path(out_dir) / "training_log.jsonl").open("w") as fh:
        for row in run.history:
            fh.write(json.dumps(row) + "\n")
    return meta


def checkpoint_meta(
    run: TrainingRun,
    premise: str,
    settings: TrainSettings,
    train_available: int,
    train_seconds: float,
    labels: Sequence[str] = LABELS,
    base_model: str | None = None,
) -> dict:
    """The metadata a trained checkpoint carries (tabprobe.json); its label_map names the head's
    outputs (`labels`, as new_classifier named them); `base_model`, where it started from another
    model of the run, that model's name and what it had learnt (left out otherwise, so that no other
    checkpoint's record changes)."""
    history = run.history
    started_from = {"base_model": _base_record(base_model, settings.base, labels)} if base_model else {}
    return {
        **started_from,
        "trained": True,
        "premise": premise,
        "pair_order": settings.pair_order,
        # What inference must read it with (models/premises.py, require_same_selection).
        "premise_selection": settings.premise_selection,
        "label_map": {LABEL_NAMES[label]: label for label in labels},
        "train_settings": asdict(settings),
        "precision": run.precision,
        "device": run.device,
        "train_examples": run.data.subset.num_rows,
        "train_examples_available": train_available,
        "train_steps": run.total_steps,
        # Wall time: the one field that differs from run to run (a resumed run adds up its attempts).
        "train_seconds": round(train_seconds, 1),
        "final_loss_last_50_steps": round(float(np.mean([h["loss"] for h in history[-50:]])), 4) if history else None,
        "dev_accuracy": round(run.dev_by_epoch[-1], 2),
        "dev_accuracy_by_epoch": run.dev_by_epoch,
        "dev_examples": run.data.dev_subset.num_rows,
    }


def _base_record(name: str, folder: str, labels: Sequence[str]) -> dict:
    """What the run's model `name` (its checkpoint: `folder`) had learnt when this one started from it:
    its premise, its dev accuracy and its training examples, from its own tabprobe.json, and, where its
    head's outputs were not `labels` (new_classifier kept those of `labels` only), that head's labels."""
    meta = read_meta(folder)
    head = trained_head(folder)
    narrowed = {"head_narrowed_from": list(head)} if head and tuple(head) != tuple(labels) else {}
    return {
        "name": name,
        "premise": meta.get("premise"),
        "dev_accuracy": meta.get("dev_accuracy"),
        "train_examples": meta.get("train_examples"),
        **narrowed,
    }


def train_model(
    train_path: str,
    train_tables_path: str,
    dev_path: str,
    dev_tables_path: str,
    out_dir: str,
    premise: str,
    train_config: Mapping[str, Any],
    seed: int,
    pair_order: str = "premise_first",
    threads: int = 1,
    labels: Sequence[str] | None = None,
) -> None:
    """Rule train_model: fine-tune a base encoder on the train split (`train_config`: the model's
    `train:` block) into `out_dir`, resuming a killed job's state. The head has one output per
    label in `labels`, by default the labels of the block's `dataset` (get_dataset(name).labels:
    E, N, C, or E, C; the paper dataset's where the block names none)."""
    import torch

    torch.set_num_threads(max(1, threads))
    train_config = dict(train_config)
    dataset = dataset_of_training(train_config)
    train_config.pop("dataset", None)
    base_model = train_config.pop("base_model", None)
    labels = tuple(labels) if labels is not None else dataset.labels
    settings = TrainSettings.from_config(train_config, seed, pair_order)
    # The resume state lives beside the output until the checkpoint is in place, so a killed job
    # (preempted, out of time, its node gone) continues where it stopped when re-run.
    resume_dir = resume_dir_for(out_dir)
    with atomic_dir(out_dir) as tmp:
        train(
            read_parquet(train_path, schemas.EXAMPLES),
            load_tables(read_parquet(train_tables_path, TABLES_SCHEMAS)),
            read_parquet(dev_path, schemas.EXAMPLES),
            load_tables(read_parquet(dev_tables_path, TABLES_SCHEMAS)),
            premise,
            settings,
            tmp,
            resume_dir=resume_dir,
            labels=labels,
            base_model=base_model,
        )
    shutil.rmtree(resume_dir, ignore_errors=True)  # only once the checkpoint is in place
    log.info("checkpoint written to %s", out_dir)
