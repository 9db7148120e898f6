"""A GGUF causal LM unpacked into a checkpoint folder (fp32 safetensors, its tokenizer and chat
template), for a server that reads folders only: `transformers serve` cannot load a GGUF file
whose config names no `architectures` (SmolLM2's), and serves the same weights from a fresh
folder. Rule unpack_gguf, for a served model whose `serve.unpack` names the file."""

from __future__ import annotations

import logging
from pathlib import Path

from tabprobe.io import atomic_dir
from tabprobe.models.gguf import load_gguf

log = logging.getLogger(__name__)


def unpack_gguf(checkpoint: str, out: str) -> None:
    """Rule unpack_gguf: the GGUF file `checkpoint` (a path or pkg://) as a checkpoint folder `out`:
    its weights dequantised into a fresh model of its class (no quantisation config left behind,
    its architecture named in config.json), with the file's tokenizer and chat template."""
    model, tokenizer, path = load_gguf(checkpoint)
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the weights below are plain fp32 tensors
    config.architectures = [type(model).__name__]
    fresh = type(model)(config)
    fresh.load_state_dict(model.state_dict(), strict=True)
    with atomic_dir(out) as folder:
        fresh.save_pretrained(Path(folder), safe_serialization=True)
        tokenizer.save_pretrained(Path(folder))
    log.info("unpacked %s into %s (%s)", path, out, type(model).__name__)
