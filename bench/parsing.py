"""Benchmark: tabprobe's hypothesis parse vs a naive one-nlp()-call-per-sentence loop.

Both parse every hypothesis of InfoTabS (all five splits, 23,738 sentences) with the same
spaCy model, in one run, side by side. The naive loop is what one writes first:
`[nlp(text) for text in texts]` with the full pipeline. tabprobe streams the texts through
`nlp.pipe` in large batches, runs only the components the probes read, and uses one process
per core. Reports sentences/s of each, the speed-up, and whether both produce the same
parses (tags, heads, dependencies, entities).

    .venv/bin/python bench/parsing.py --infotabs ../shared/infotabs

Goal on a 2-core CPU: tabprobe parses all hypotheses in at most 35 s and at least 3x faster
than the naive loop.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from tabprobe.data import parsing
from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.data.infotabs.reading import SPLITS


def signature(doc) -> tuple:
    """What the probes read from a parse; equal signatures mean equal parses for them."""
    return (
        tuple((t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_) for t in doc),
        tuple((e.start, e.end, e.label_) for e in doc.ents),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--model", default="auto")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument(
        "--naive-limit",
        type=int,
        default=None,
        help="time the naive loop on this many sentences and scale up (it is the slow one)",
    )
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    texts, uids = [], []
    for split in SPLITS:
        examples = ingest_split(args.infotabs, split).examples
        texts += examples["hypothesis"].to_pylist()
        uids += examples["uid"].to_pylist()

    import spacy

    naive_nlp = spacy.load(parsing.resolve_model(args.model))
    naive_texts = texts[: args.naive_limit] if args.naive_limit else texts
    start = time.perf_counter()
    naive_docs = [naive_nlp(text) for text in naive_texts]
    naive_seconds = time.perf_counter() - start
    naive_rate = len(naive_texts) / naive_seconds

    nlp = parsing.load_pipeline(args.model)
    start = time.perf_counter()
    docs = parsing.parse(nlp, texts, uids, batch_size=args.batch_size, n_process=args.processes)
    ours_seconds = time.perf_counter() - start
    ours_rate = len(texts) / ours_seconds

    ours = list(docs.get_docs(nlp.vocab))
    same = sum(signature(a) == signature(b) for a, b in zip(naive_docs, ours))
    figures = {
        "sentences": len(texts),
        "model": parsing.model_description(nlp),
        "processes": args.processes,
        "batch_size": args.batch_size,
        "naive_sentences_timed": len(naive_texts),
        "naive_sentences_per_s": round(naive_rate, 1),
        "naive_seconds_all": round(len(texts) / naive_rate, 1),
        "tabprobe_sentences_per_s": round(ours_rate, 1),
        "tabprobe_seconds_all": round(ours_seconds, 1),
        "speedup": round(ours_rate / naive_rate, 2),
        "identical_parses": f"{same} of {len(naive_docs)}",
        "cpu": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(figures, fh, indent=2)


if __name__ == "__main__":
    main()
