"""Benchmark: tabprobe's inference path vs transformers.pipeline("text-classification").

Same model, same alpha1 premise+hypothesis pairs, one process, side by side; reports
examples/s of each, the speed-up, and argmax agreement of tabprobe's (bf16 where supported)
predictions with an fp32 reference. Run after the workflow has trained its models:

    .venv/bin/python bench/inference.py --infotabs ../shared/infotabs --model resources/models/minilm-para

Goal on a 2-core CPU: >= 1.6x the pipeline's examples/s, >= 99.5% agreement with fp32.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np
import torch

from tabprobe import LABELS
from tabprobe.infotabs import ingest_split, load_tables
from tabprobe.models import infer, load_classifier
from tabprobe.perturb import generate, select_examples
from tabprobe.render import render
from tabprobe.table import Table


def pipeline_run(
    checkpoint: str, pairs: list[dict], max_length: int, order: list[int], cut: str
) -> tuple[np.ndarray, float]:
    from transformers import pipeline

    classifier = pipeline("text-classification", model=checkpoint, tokenizer=checkpoint, device="cpu")
    # Default settings (batch_size 1, fp32); truncation must be asked for, or long tables crash.
    name_to_index = {name: int(i) for i, name in classifier.model.config.id2label.items()}
    start = time.perf_counter()
    outputs = classifier(pairs, truncation=cut, max_length=max_length)
    seconds = time.perf_counter() - start
    preds = np.array([order.index(name_to_index[o["label"]]) for o in outputs])
    return preds, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--model", default="resources/models/minilm-para")
    parser.add_argument("--premise", default="para")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--pair-order", default="hypothesis_first", choices=["premise_first", "hypothesis_first"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    split = ingest_split(args.infotabs, "alpha1")
    tables = load_tables(split.tables)
    examples = select_examples(split.examples, args.examples, args.seed, "alpha1")
    probe_examples, _ = generate("original", examples, tables, args.seed)
    rendered = [
        (render(Table.from_arrow(r["table"]), args.premise), r["hypothesis"])
        for r in probe_examples.select(["table", "hypothesis"]).to_pylist()
    ]
    first_is_premise = args.pair_order == "premise_first"
    pairs = [{"text": p, "text_pair": h} if first_is_premise else {"text": h, "text_pair": p} for p, h in rendered]
    cut = "only_first" if first_is_premise else "only_second"  # the premise is cut, as in tabprobe

    loaded = load_classifier(args.model)
    run = dict(batch_size=args.batch_size, max_length=args.max_length, pair_order=args.pair_order)
    infer(probe_examples.slice(0, 8), loaded, args.premise, **run)  # warm-up

    start = time.perf_counter()
    fast, fast_stats = infer(probe_examples, loaded, args.premise, precision="auto", **run)
    fast_seconds = time.perf_counter() - start
    start = time.perf_counter()
    reference, _ = infer(probe_examples, loaded, args.premise, precision="fp32", **run)
    reference_seconds = time.perf_counter() - start
    pipe_preds, pipe_seconds = pipeline_run(args.model, pairs, args.max_length, loaded.order, cut)

    fast_preds = np.array([LABELS.index(p) for p in fast["pred"].to_pylist()])
    ref_preds = np.array([LABELS.index(p) for p in reference["pred"].to_pylist()])
    n = probe_examples.num_rows
    result = {
        "examples": n,
        "model": args.model,
        "max_length": args.max_length,
        "pair_order": args.pair_order,
        "threads": args.threads,
        "cpu": platform.processor() or platform.machine(),
        "tabprobe_precision": fast_stats["precision"],
        "tabprobe_examples_per_s": round(n / fast_seconds, 2),
        "tabprobe_fp32_examples_per_s": round(n / reference_seconds, 2),
        "pipeline_examples_per_s": round(n / pipe_seconds, 2),
        "speedup_vs_pipeline": round(pipe_seconds / fast_seconds, 2),
        "fp32_speedup_vs_pipeline": round(pipe_seconds / reference_seconds, 2),
        "agreement_with_fp32_pct": round(100 * float(np.mean(fast_preds == ref_preds)), 2),
        "pipeline_agreement_with_fp32_pct": round(100 * float(np.mean(pipe_preds == ref_preds)), 2),
        "truncated": fast_stats["truncated"],
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
