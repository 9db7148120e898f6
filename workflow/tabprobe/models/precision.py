"""A loaded model, the device it runs on and the precision of its weights: half-precision copies
made once per precision, the precision `auto` resolves to on the hardware at hand, and autocast
for training."""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LoadedModel:
    model: object
    # The tokenizer as loaded. Never called: every thread tokenizes with a copy of its own (`tokenizer`).
    loaded_tokenizer: object
    order: list[int | None]  # output index for E, N, C (None: N, which a two-label head lacks)
    fingerprint: str
    device: str = "cpu"
    # "classifier" (a sequence-classification head: `order` reads its outputs) or "causal" (a
    # prompted language model scored by label likelihood, tabprobe.models.causal; `order` unused).
    kind: str = "classifier"
    # Where it was loaded from (a checkpoint folder or a GGUF file), for messages naming its files.
    path: Path | None = None
    # Copies of `model` with half-precision weights, made on first use (one per precision).
    _half: dict = field(default_factory=dict, repr=False)
    _half_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Each thread's copy of the tokenizer (threading.Thread -> tokenizer), handed on when it ends.
    _tokenizers: dict = field(default_factory=dict, repr=False)
    _tokenizers_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def tokenizer(self):
        """This thread's own copy of the loaded tokenizer. A transformers fast tokenizer cannot be
        shared by threads: each call first sets the truncation and padding of the Rust tokenizer
        underneath (set_truncation_and_padding) and then encodes with them, so a call on another
        thread in between encodes with that call's settings. On the model server, whose requests
        run on threads of their own, one request's premises came out longer than max_length (a
        crash, or silently other tokens and predictions than the job alone would give). A copy
        costs one copy.deepcopy (on 2 busy CPU cores 62-71 ms for MiniLM's tokenizer, 200-245 ms for
        SmolLM2's: bench/tokenizer_copies.py); a thread that has ended hands its copy to the next
        new thread, so a server makes as many copies as it ran requests at once, not one per request."""
        me = threading.current_thread()
        with self._tokenizers_lock:
            mine = self._tokenizers.get(me)
            if mine is None:
                ended = next((thread for thread in self._tokenizers if not thread.is_alive()), None)
                mine = self._tokenizers.pop(ended) if ended is not None else copy.deepcopy(self.loaded_tokenizer)
                self._tokenizers[me] = mine
            return mine

    def weights_in(self, precision: str):
        """The model with its weights in `precision` (fp32: the loaded model itself). Inference
        runs half-precision weights rather than autocast: autocast converts every weight at every
        call, which on a GPU costs more than the matmuls of a small batch. The server's request
        threads share one copy per precision."""
        if precision == "fp32":
            return self.model
        with self._half_lock:
            if precision not in self._half:
                self._half[precision] = copy.deepcopy(self.model).to(half_dtype(precision)).eval()
            return self._half[precision]


def pick_device() -> str:
    """CUDA when the job landed on a GPU, else the CPU; TABPROBE_DEVICE overrides (e.g. cpu)."""
    import torch

    wanted = os.environ.get("TABPROBE_DEVICE")
    if wanted:
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


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
