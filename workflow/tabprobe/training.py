"""Fine-tuning a base encoder into a 3-way NLI classifier on InfoTabS train.

Seeded and deterministic on the CPU: the subset of training examples, the head's initial
weights, the batch order and dropout all come from the seed. Batches group examples of similar
length (shuffled in chunks, then sorted within a chunk), which on a CPU saves most of the
padding a plain shuffle would compute.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
from tqdm import tqdm

from . import LABELS
from .encoding import collate, encode
from .models import NLI_ID2LABEL, LoadedModel, autocast, new_classifier, pick_device, predict_batches, resolve_precision, save_checkpoint
from .perturb import seeded_rng
from .render import render
from .table import Table

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

    @classmethod
    def from_config(cls, train: Mapping[str, Any], seed: int, pair_order: str = "premise_first") -> "TrainSettings":
        return cls(seed=seed, pair_order=pair_order, **train)


def length_grouped_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator, chunk: int = 50) -> list[np.ndarray]:
    """Shuffled batches of similar-length examples: shuffle, cut into chunks of `chunk` batches,
    sort each chunk by length, split into batches, shuffle the batches."""
    order = rng.permutation(len(lengths))
    batches = []
    span = batch_size * chunk
    for start in range(0, len(order), span):
        block = order[start : start + span]
        block = block[np.argsort(-lengths[block], kind="stable")]
        batches += [block[i : i + batch_size] for i in range(0, len(block), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def _features(examples: pa.Table, tables: Mapping[str, Table], premise: str, tokenizer, settings: TrainSettings):
    records = examples.select(["table_id", "hypothesis", "label"]).to_pylist()
    premises = [render(tables[r["table_id"]], premise) for r in records]
    encoded = encode(tokenizer, premises, [r["hypothesis"] for r in records], settings.max_length, settings.pair_order)
    labels = np.array([LABELS.index(r["label"]) for r in records], dtype=np.int64)
    return encoded, labels


def accuracy(loaded: LoadedModel, encoded, labels: np.ndarray, batch_size: int, precision: str) -> float:
    order = np.argsort(-encoded.lengths(), kind="stable")
    probs = predict_batches(loaded, [encoded.features[i] for i in order], batch_size, precision)
    return float(100.0 * np.mean(probs.argmax(axis=1) == labels[order]))


def train(
    train_examples: pa.Table,
    train_tables: Mapping[str, Table],
    dev_examples: pa.Table,
    dev_tables: Mapping[str, Table],
    premise: str,
    settings: TrainSettings,
    out_dir: str | Path,
) -> dict:
    """Fine-tune, evaluate on dev, and write a checkpoint directory; returns its metadata."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    from .perturb import select_examples

    model, tokenizer = new_classifier(settings.base, settings.seed)
    device = pick_device()
    precision = resolve_precision(settings.precision, device)
    model.to(device)

    subset = select_examples(train_examples, settings.examples, settings.seed, "train")
    encoded, labels = _features(subset, train_tables, premise, tokenizer, settings)
    log.info("training on %d of %d train examples (%d premises cut to %d tokens), %s on %s",
             subset.num_rows, train_examples.num_rows, encoded.truncated, settings.max_length, precision, device)

    rng = seeded_rng(settings.seed, "training-batches")
    epochs = [length_grouped_batches(encoded.lengths(), settings.batch_size, rng) for _ in range(settings.epochs)]
    total_steps = sum(len(e) for e in epochs)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)], "weight_decay": settings.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=settings.learning_rate)
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(settings.warmup_ratio * total_steps), total_steps)
    pad_id = tokenizer.pad_token_id or 0
    history = []
    start = time.monotonic()
    model.train()
    with tqdm(total=total_steps, desc="training", unit="batch", file=sys.stderr, mininterval=10, ascii=True) as bar:
        for epoch, batches in enumerate(epochs):
            for batch_idx in batches:
                batch = {k: v.to(device) for k, v in collate([encoded.features[i] for i in batch_idx], pad_id).items()}
                target = torch.from_numpy(labels[batch_idx]).to(device)
                with autocast(device, precision):
                    logits = model(**batch).logits
                loss = torch.nn.functional.cross_entropy(logits.float(), target)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                history.append({"step": len(history) + 1, "epoch": epoch + 1, "loss": round(loss.item(), 5),
                                "lr": scheduler.get_last_lr()[0]})
                bar.update(1)
                if len(history) % 50 == 0:
                    recent = np.mean([h["loss"] for h in history[-50:]])
                    log.info("step %d / %d, epoch %d, loss %.4f (last 50 steps)", len(history), total_steps, epoch + 1, recent)
    train_seconds = time.monotonic() - start
    model.eval()

    dev_subset = select_examples(dev_examples, settings.dev_examples, settings.seed, "dev")
    dev_encoded, dev_labels = _features(dev_subset, dev_tables, premise, tokenizer, settings)
    loaded = LoadedModel(model, tokenizer, [0, 1, 2], "", device)
    dev_accuracy = accuracy(loaded, dev_encoded, dev_labels, 64, precision)
    log.info("dev accuracy %.2f%% on %d examples; training took %.0f s", dev_accuracy, dev_subset.num_rows, train_seconds)

    meta = {
        "trained": True,
        "premise": premise,
        "pair_order": settings.pair_order,
        "label_map": {name: LABELS[i] for i, name in NLI_ID2LABEL.items()},
        "train_settings": asdict(settings),
        "precision": precision,
        "device": device,
        "train_examples": subset.num_rows,
        "train_examples_available": train_examples.num_rows,
        "train_steps": total_steps,
        "train_seconds": round(train_seconds, 1),
        "final_loss_last_50_steps": round(float(np.mean([h["loss"] for h in history[-50:]])), 4) if history else None,
        "dev_accuracy": round(dev_accuracy, 2),
        "dev_examples": dev_subset.num_rows,
    }
    save_checkpoint(model, tokenizer, out_dir, meta)
    with (Path(out_dir) / "training_log.jsonl").open("w") as fh:
        for row in history:
            fh.write(json.dumps(row) + "\n")
    return meta
