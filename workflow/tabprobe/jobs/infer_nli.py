"""Rule infer_nli: one model's predictions on one probe's examples of one split.

Two ways, the same bytes: on the model's server (tabprobe.serving), which loads the model once
for all of the model's jobs on this machine (the rule's way, unless TABPROBE_MODEL_SERVER=0),
or in this process.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from .. import predict, schemas
from ..io import atomic_path, write_json, write_parquet


def shard_folder(out: str) -> Path:
    # Finished blocks are kept beside the output until it is written, so a killed job resumes.
    return Path(out).with_name(f".{Path(out).stem}.shards")


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
) -> None:
    """`prompt` (a causal LM's `causal:` block, less its checkpoint) makes `checkpoint` a causal
    LM, prompted with the k-shot examples in `shots` (select_shots); else it is a classifier."""
    settings = dict(
        premise=premise,
        batch_size=batch_size,
        gpu_batch_tokens=gpu_batch_tokens,
        max_length=max_length,
        precision=precision,
        shard_size=shard_size,
    )
    if prompt is None:
        kind = "classifier"
        settings["pair_order"] = pair_order
    else:
        kind = "causal"
        settings["prompt"] = {**prompt, "shots": json.loads(Path(shots).read_text(encoding="utf-8")) if shots else []}
    shards = shard_folder(out)
    if use_server:
        from .. import serving  # no torch, no transformers: the server has them loaded

        predictions, stats = serving.ask(
            checkpoint, probe_path, str(shards), settings, label_map, threads, server_log, kind=kind
        )
        with atomic_path(out) as tmp:
            tmp.write_bytes(predictions)
    else:
        import torch

        torch.set_num_threads(max(1, threads))
        loaded = predict.load_model(checkpoint, label_map, kind)
        table, stats = predict.predict_file(loaded, checkpoint, probe_path, shards, **settings)
        stats["threads"] = threads
        write_parquet(table, out, schemas.PREDICTIONS)
    write_json(stats, stats_out)
    shutil.rmtree(shards, ignore_errors=True)  # only once both outputs are in place
