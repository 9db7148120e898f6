"""What inference by every kind of model shares: examples sorted by length and planned into
batches and blocks, finished blocks saved for resuming (ShardStore), and the predictions table
they end in (`schemas.PREDICTIONS`)."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
from tqdm import tqdm

from tabprobe import LABELS, schemas
from tabprobe.io import atomic_path
from tabprobe.models.precision import LoadedModel

log = logging.getLogger(__name__)


def plan_batches(lengths: np.ndarray, batch_size: int | None, batch_tokens: int | None = None) -> list[tuple[int, int]]:
    """(start, stop) of consecutive batches over examples sorted longest first. A batch holds at
    most `batch_size` examples and, with `batch_tokens`, at most that many tokens once padded
    (its first, longest example's length times its size), so short examples travel in big
    batches and long ones in small: the GPU does the same work per pass whatever the lengths. An
    example longer than the budget is a batch by itself."""
    if batch_size is None and batch_tokens is None:
        raise ValueError("plan_batches needs batch_size, batch_tokens or both")
    batches, start, n = [], 0, len(lengths)
    while start < n:
        size = n - start
        if batch_size is not None:
            size = min(size, batch_size)
        if batch_tokens is not None:
            size = min(size, max(1, batch_tokens // max(1, int(lengths[start]))))
        batches.append((start, start + size))
        start += size
    return batches


def plan_blocks(batches: Sequence[tuple[int, int]], shard_size: int) -> list[list[tuple[int, int]]]:
    """Whole batches grouped into blocks of at least `shard_size` examples (the last may be
    smaller): the unit saved for resuming, so a resumed run computes exactly the batches an
    uninterrupted one would."""
    blocks, current = [], []
    for batch in batches:
        current.append(batch)
        if current[-1][1] - current[0][0] >= shard_size:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def input_digest(feature: Mapping[str, Sequence[int]]) -> str:
    """Short hash of exactly the tokens a model saw for one example (after truncation), so
    scoring can tell a perturbation the model could see from one cut off past max_length."""
    digest = hashlib.blake2b(digest_size=8)
    for name in sorted(feature):
        digest.update(name.encode() + b"=" + np.asarray(feature[name], dtype=np.int32).tobytes() + b"|")
    return digest.hexdigest()


def _inputs_key(loaded: LoadedModel, features: Sequence[dict], settings: dict) -> str:
    """Identifies exactly what a shard was computed from: model, settings and every input token."""
    digest = hashlib.sha256(json.dumps([loaded.fingerprint, settings], sort_keys=True).encode())
    for f in features:
        digest.update(np.asarray(f["input_ids"], dtype=np.int32).tobytes() + b"|")
    return digest.hexdigest()


def run_in_blocks(
    loaded: LoadedModel,
    features: Sequence[dict],
    compute,
    batch_size: int | None,
    batch_tokens: int | None,
    shard_dir: str | Path | None,
    shard_size: int,
    key_settings: dict,
) -> tuple[np.ndarray, dict]:
    """Class probabilities (E, N, C) for every example's `features`, in their order, and the
    run's statistics. `compute(features, batches)` predicts a block of examples sorted longest
    first. The loop shared by every kind of model: sort by length, plan batches and blocks, resume
    finished blocks from `shard_dir` (keyed by the model, `key_settings` and every input token),
    save the rest as they finish, and log the speed."""
    lengths = np.array([len(f["input_ids"]) for f in features], dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    ordered = [features[i] for i in order]
    sorted_lengths = lengths[order]
    batches = plan_batches(sorted_lengths, None if batch_tokens else batch_size, batch_tokens)
    blocks = plan_blocks(batches, shard_size)
    # Everything that shapes a block's numbers or its place in the output is in the key.
    key_settings = {
        **key_settings,
        "batch_size": batch_size,
        "batch_tokens": batch_tokens,
        "shard_size": shard_size,
        "device": loaded.device,
    }
    shards = ShardStore(shard_dir, _inputs_key(loaded, ordered, key_settings)) if shard_dir else None

    probs_sorted = np.zeros((len(ordered), len(LABELS)), dtype=np.float32)
    resumed = 0
    start_time = time.monotonic()
    with tqdm(total=len(ordered), desc="inference", unit="ex", file=sys.stderr, mininterval=5, ascii=True) as bar:
        for k, block_batches in enumerate(blocks):
            first, last = block_batches[0][0], block_batches[-1][1]
            block = shards.load(k, last - first) if shards else None
            if block is None:
                local = [(start - first, stop - first) for start, stop in block_batches]
                block = compute(ordered[first:last], local)
                if shards:
                    shards.save(k, block)
            else:
                resumed += len(block)
            probs_sorted[first:last] = block
            bar.update(len(block))
    seconds = time.monotonic() - start_time
    computed = len(ordered) - resumed
    real_tokens = int(lengths.sum())
    padded_tokens = sum((stop - start) * int(sorted_lengths[start]) for start, stop in batches)
    log.info(
        "inference: %d examples (%d from saved shards) in %.1f s, %.1f examples/s, %d batches (%.1f%% padding), %s on %s",
        len(ordered),
        resumed,
        seconds,
        computed / max(seconds, 1e-9),
        len(batches),
        100.0 * (1 - real_tokens / max(padded_tokens, 1)),
        key_settings.get("precision"),
        loaded.device,
    )
    probs = np.zeros_like(probs_sorted)
    probs[order] = probs_sorted
    stats = {
        "batches": len(batches),
        "batch_tokens": batch_tokens,
        "tokens": real_tokens,
        "padded_tokens": padded_tokens,
        "resumed_examples": resumed,
        "examples_per_second": round(computed / max(seconds, 1e-9), 2),
    }
    return probs, stats


def predictions_table(
    probe_examples: pa.Table, probs: np.ndarray, fingerprint: str, features: Sequence[dict]
) -> pa.Table:
    """`schemas.PREDICTIONS` for the probe examples: each one's probabilities (E, N, C), the label
    they make, and a digest of the tokens the model saw."""
    preds = [LABELS[i] for i in probs.argmax(axis=1)]
    return pa.table(
        {
            "uid": probe_examples["uid"],
            "orig_uid": probe_examples["orig_uid"],
            "pred": pa.array(preds, pa.string()),
            "probs": pa.array(probs.tolist(), pa.list_(pa.float32())),
            "model_fingerprint": pa.array([fingerprint] * len(probs), pa.string()),
            "input_digest": pa.array([input_digest(f) for f in features], pa.string()),
        },
        schema=schemas.PREDICTIONS,
    )


class ShardStore:
    """Finished blocks of an inference job, kept on disk until the job's output is written.

    The folder records the key of the inputs it was computed from; blocks from other inputs
    (another checkpoint, edited probe) are discarded rather than mixed in.
    """

    def __init__(self, folder: str | Path, key: str):
        self.folder = Path(folder)
        key_file = self.folder / "inputs.sha256"
        if self.folder.exists() and (not key_file.exists() or key_file.read_text() != key):
            log.info("discarding shards in %s: computed from other inputs", self.folder)
            shutil.rmtree(self.folder)
        if not self.folder.exists():
            self.folder.mkdir(parents=True)
            key_file.write_text(key)
        else:
            log.info("resuming from shards in %s", self.folder)

    def _path(self, k: int) -> Path:
        return self.folder / f"block-{k:05d}.npy"

    def load(self, k: int, rows: int) -> np.ndarray | None:
        path = self._path(k)
        if not path.exists():
            return None
        try:
            block = np.load(path, allow_pickle=False)
        except (ValueError, OSError, EOFError):  # a block cut short by a crash: compute it again
            return None
        return block if block.shape == (rows, len(LABELS)) else None

    def save(self, k: int, block: np.ndarray) -> None:
        with atomic_path(self._path(k)) as tmp:
            with tmp.open("wb") as fh:
                np.save(fh, block, allow_pickle=False)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
