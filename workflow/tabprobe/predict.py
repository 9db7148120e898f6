"""One probe file's predictions, by a model of either kind: a sequence classifier (tabprobe.models)
or a prompted causal LM (tabprobe.causal). What an infer_nli job runs, in its own process or on
the model's server (tabprobe.serving)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa

from . import causal, models, schemas
from .checkpoints import read_meta
from .io import read_parquet
from .precision import LoadedModel

MODEL_KINDS = ("classifier", "causal")


def load_model(checkpoint: str | Path, label_map: Mapping[str, str] | None = None, kind: str = "classifier"):
    """A checkpoint loaded for inference: a sequence classifier, or a causal language model."""
    if kind == "causal":
        return causal.load_causal_lm(checkpoint)
    if kind != "classifier":
        raise ValueError(f"unknown model kind {kind!r}; expected one of {MODEL_KINDS}")
    return models.load_classifier(checkpoint, label_map)


def predict_file(
    loaded: LoadedModel,
    checkpoint: str | Path,
    probe_path: str | Path,
    shard_dir: str | Path | None,
    gpu_batch_tokens: int | None = None,
    **settings,
) -> tuple[pa.Table, dict]:
    """Predictions for one probe file and the statistics infer_nli records beside them; the same
    for a job that loaded the model itself and for the model's server (tabprobe.serving).

    On a GPU, batches are filled to `gpu_batch_tokens` padded tokens: a GPU needs big batches to
    be busy, and a fixed number of examples per batch leaves it idle on short inputs. On a CPU,
    which is busy at any batch size, `batch_size` examples."""
    probe_examples = read_parquet(probe_path, schemas.PROBE_EXAMPLES)
    start = time.monotonic()
    batch_tokens = batch_tokens_on(loaded, gpu_batch_tokens)
    infer = causal.infer if loaded.kind == "causal" else models.infer
    table, stats = infer(probe_examples, loaded, shard_dir=shard_dir, batch_tokens=batch_tokens, **settings)
    stats.update(
        checkpoint=str(checkpoint),
        premise=settings["premise"],
        fingerprint=loaded.fingerprint,
        meta=read_meta(checkpoint),
        seconds=round(time.monotonic() - start, 2),
    )
    return table, stats


def batch_tokens_on(loaded: LoadedModel, gpu_batch_tokens: int | None) -> int | None:
    """The padded tokens per batch on the model's device: `gpu_batch_tokens` on a GPU, none (then
    `batch_size` examples) on a CPU."""
    return gpu_batch_tokens if loaded.device.startswith("cuda") else None
