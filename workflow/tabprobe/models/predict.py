"""One probe file's predictions, by a model of either kind: a sequence classifier (tabprobe.models.classifiers)
or a prompted causal LM (tabprobe.models.causal). What an infer_nli job runs, in its own process or on
the model's server (tabprobe.models.serving)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS
from tabprobe.io import atomic_path, read_parquet, write_json, write_parquet
from tabprobe.models import causal
from tabprobe.models import classifiers as models
from tabprobe.models.checkpoints import read_meta
from tabprobe.models.precision import LoadedModel
from tabprobe.models.premises import premise_holds, require_same_selection

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
    for a job that loaded the model itself and for the model's server (tabprobe.models.serving).

    On a GPU, batches are filled to `gpu_batch_tokens` padded tokens: a GPU needs big batches to
    be busy, and a fixed number of examples per batch leaves it idle on short inputs. On a CPU,
    which is busy at any batch size, `batch_size` examples."""
    meta = read_meta(checkpoint)
    require_same_selection(meta, settings.get("premise_selection"), str(checkpoint))
    probe_examples = read_parquet(probe_path, PROBE_EXAMPLES_SCHEMAS)
    start = time.monotonic()
    batch_tokens = batch_tokens_on(loaded, gpu_batch_tokens)
    infer = causal.infer if loaded.kind == "causal" else models.infer
    table, stats = infer(probe_examples, loaded, shard_dir=shard_dir, batch_tokens=batch_tokens, **settings)
    stats.update(
        checkpoint=str(checkpoint),
        premise=settings["premise"],
        premise_selection=settings.get("premise_selection"),
        premise_holds=premise_holds(settings["premise"], settings.get("premise_selection")),
        fingerprint=loaded.fingerprint,
        meta=meta,
        seconds=round(time.monotonic() - start, 2),
    )
    return table, stats


def batch_tokens_on(loaded: LoadedModel, gpu_batch_tokens: int | None) -> int | None:
    """The padded tokens per batch on the model's device: `gpu_batch_tokens` on a GPU, none (then
    `batch_size` examples) on a CPU."""
    return gpu_batch_tokens if loaded.device.startswith("cuda") else None


SHARD_SUFFIX = ".shards"


def shard_folder(out: str) -> Path:
    # Finished blocks are kept beside the output until it is written, so a killed job resumes.
    return Path(out).with_name(f".{Path(out).stem}{SHARD_SUFFIX}")


def is_shard_folder(path: str | Path) -> bool:
    """Whether a folder is named as `shard_folder` names one (.<output's stem>.shards)."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(SHARD_SUFFIX) and len(name) > len(SHARD_SUFFIX) + 1


def infer_nli(
    probe_path: str,
    checkpoint: str,
    out: str,
    stats_out: str,
    premise: str,
    label_map: Mapping[str, str] | None = None,
    batch_size: int = 32,
    gpu_batch_tokens: int | None = None,
    max_length: int = 512,
    precision: str = "auto",
    pair_order: str = "premise_first",
    threads: int = 1,
    shard_size: int = 512,
    server_log: str | None = None,
    use_server: bool = False,
    prompt: Mapping | None = None,
    shots: str | None = None,
    premise_selection: str | None = None,
) -> None:
    """Rule infer_nli: one model's predictions on one probe's examples of one split.

    Two ways, the same bytes: on the model's server (models/serving.py), which loads the model
    once for all of the model's jobs on this machine (the rule's way, unless
    TABPROBE_MODEL_SERVER=0), or in this process. `prompt` (a causal LM's `causal:` block, less its
    checkpoint) makes `checkpoint` a causal LM, prompted with the k-shot examples in `shots`
    (select_shots); else it is a classifier."""
    settings = dict(
        premise=premise,
        batch_size=batch_size,
        gpu_batch_tokens=gpu_batch_tokens,
        max_length=max_length,
        precision=precision,
        shard_size=shard_size,
        premise_selection=premise_selection,
    )
    if prompt is None:
        kind = "classifier"
        settings["pair_order"] = pair_order
    else:
        kind = "causal"
        settings["prompt"] = {**prompt, "shots": json.loads(Path(shots).read_text(encoding="utf-8")) if shots else []}
    shards = shard_folder(out)
    if use_server:
        from tabprobe.models import serving  # no torch, no transformers: the server has them loaded

        predictions, stats = serving.ask(
            checkpoint, probe_path, str(shards), settings, label_map, threads, server_log, kind=kind
        )
        with atomic_path(out) as tmp:
            tmp.write_bytes(predictions)
    else:
        import torch

        torch.set_num_threads(max(1, threads))
        loaded = load_model(checkpoint, label_map, kind)
        table, stats = predict_file(loaded, checkpoint, probe_path, shards, **settings)
        stats["threads"] = threads
        write_parquet(table, out, schemas.PREDICTIONS)
    write_json(stats, stats_out)
    shutil.rmtree(shards, ignore_errors=True)  # only once both outputs are in place
