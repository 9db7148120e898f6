"""Sequence-classification checkpoints: loading one safely and running NLI inference with it on
probe examples, whether it reads a premise rendered to text or, a TAPAS model, the table itself
(tabprobe.models.tapas); a prompted causal LM is tabprobe.models.causal's."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from tabprobe import LABELS
from tabprobe.data.tables import table_from_arrow
from tabprobe.errors import ModelError
from tabprobe.models import tapas
from tabprobe.models.checkpoints import (
    context_problems,
    fingerprint,
    in_label_order,
    label_order,
    read_config,
    require_base,
)
from tabprobe.models.encoding import collate, encode, pairs_only
from tabprobe.models.inference import predictions_table, run_in_blocks
from tabprobe.models.precision import LoadedModel, autocast, pick_device, resolve_precision
from tabprobe.models.premises import rendered_premises

log = logging.getLogger(__name__)


def load_classifier(checkpoint: str | Path, label_map: Mapping[str, str] | None = None) -> LoadedModel:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = require_base(str(checkpoint))
    if tapas.reads_table(read_config(path).get("model_type")):
        tapas.require_pandas()  # before transformers fails on it with less to say
    # In fp32 whatever the checkpoint was saved in (transformers keeps the saved dtype): the
    # loaded model is the fp32 one, and `weights_in` casts copies for bf16 / fp16.
    model, loading = AutoModelForSequenceClassification.from_pretrained(
        path, use_safetensors=True, trust_remote_code=False, output_loading_info=True, dtype=torch.float32
    )
    # Weights the checkpoint lacks (an encoder saved without its head) or holds in another shape
    # are initialised at random by transformers, with only a warning: predictions from them
    # would mean nothing. (Unexpected weights, such as an unused pooler, are merely ignored.)
    missing = sorted(loading["missing_keys"]) + sorted(str(k) for k in loading["mismatched_keys"])
    if missing:
        raise ModelError(
            f"{path}: the checkpoint lacks trained weights for {', '.join(missing[:6])}"
            f"{f' and {len(missing) - 6} more' if len(missing) > 6 else ''}, which would be initialised at random. "
            "Give a checkpoint fine-tuned for sequence classification (saved with its classification head), "
            "or use `init:` in config for an untrained-head baseline on purpose."
        )
    device = pick_device()
    model.to(device).eval()
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    order = label_order(model.config.id2label, label_map, str(path))
    log.info("loaded %s on %s", path, device)
    return LoadedModel(model, tokenizer, order, fingerprint(path), device, path=Path(path))


def predict_batches(
    model,
    features: Sequence[dict],
    batches: Sequence[tuple[int, int]],
    pad_id: int,
    order: Sequence[int | None],
    device: str,
    precision: str = "fp32",
) -> np.ndarray:
    """Class probabilities, in `order` (E, N, C; N is 0 for a two-label head), for `features`
    already sorted by length, batch by batch. `precision` autocasts a model whose weights are fp32; a model already in half
    precision runs as it is. The results stay on the device until the end: one synchronisation
    per call rather than per batch, so the next batch is padded and copied while the GPU works
    on this one (from pinned memory, without blocking)."""
    import torch

    on_gpu = device.startswith("cuda")
    outputs = []
    with torch.inference_mode(), autocast(device, precision):
        for start, stop in batches:
            batch = collate(features[start:stop], pad_id, pin=on_gpu)
            batch = {k: v.to(device, non_blocking=on_gpu) for k, v in batch.items()}
            logits = model(**batch).logits.float()
            outputs.append(in_label_order(torch.softmax(logits, dim=-1), order))
        if not outputs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        return torch.cat(outputs).cpu().numpy().astype(np.float32, copy=False)


def infer(
    probe_examples: pa.Table,
    loaded: LoadedModel,
    premise: str,
    batch_size: int = 32,
    max_length: int = 512,
    precision: str = "auto",
    shard_dir: str | Path | None = None,
    shard_size: int = 512,
    pair_order: str = "premise_first",
    batch_tokens: int | None = None,
    premise_selection: str | None = None,
) -> tuple[pa.Table, dict]:
    """Predictions for every probe example (`schemas.PREDICTIONS`), plus run statistics.

    Examples run longest first with dynamic padding, in batches of `batch_size` examples or, with
    `batch_tokens`, of as many examples as fit that many padded tokens (`plan_batches`). Weights
    are cast to half precision when `precision` resolves to bf16 or fp16. With `shard_dir`, each
    block of at least `shard_size` examples is saved as it finishes; a killed job re-run with the
    same inputs loads the finished blocks and computes only the rest. Blocks hold whole batches,
    so a resumed run computes exactly the batches an uninterrupted run would.
    """
    for problem in context_problems(loaded.model.config.to_dict(), max_length):
        raise ModelError(f"config key max_length: {problem}")  # the config check names its file and line
    problem = tapas.pairing_problem(premise, loaded.model.config.model_type)
    if problem:
        raise ModelError(f"config key premise: {problem}")
    records = probe_examples.select(["uid", "table", "hypothesis"]).to_pylist()
    tables = [table_from_arrow(r["table"]) for r in records]
    hypotheses = [r["hypothesis"] for r in records]
    table_key, narrowed = {}, 0
    if premise == tapas.TABLE_PREMISE:
        if premise_selection:
            raise ModelError("config key premise_selection: a TAPAS model (premise: table) reads the table itself")
        encoded = tapas.encode_tables(loaded.tokenizer, tables, hypotheses, max_length, [r["uid"] for r in records])
        table_key["token_types"] = tapas.token_types_key(encoded.features)
    else:
        premises, narrowed = rendered_premises(
            loaded.tokenizer, tables, hypotheses, premise, premise_selection, max_length
        )
        encoded = encode(
            loaded.tokenizer,
            premises,
            hypotheses,
            max_length,
            pair_order,
            pairs_only(loaded.model.config),
        )
    if encoded.truncated:
        log.info("%d of %d premises were cut to fit max_length=%d", encoded.truncated, len(records), max_length)
    precision = resolve_precision(precision, loaded.device)
    model = loaded.weights_in(precision)
    pad_id = loaded.tokenizer.pad_token_id or 0

    def compute(features, batches):
        return predict_batches(model, features, batches, pad_id, loaded.order, loaded.device)

    probs, run = run_in_blocks(
        loaded,
        encoded.features,
        compute,
        batch_size=batch_size,
        batch_tokens=batch_tokens,
        shard_dir=shard_dir,
        shard_size=shard_size,
        key_settings={"precision": precision, "order": loaded.order, **table_key},
    )
    stats = {
        "examples": len(records),
        "truncated": encoded.truncated,
        "selected": narrowed,
        "max_length": max_length,
        "pair_order": pair_order,
        "precision": precision,
        "device": loaded.device,
        **run,
    }
    return predictions_table(probe_examples, probs, loaded.fingerprint, encoded.features), stats
