"""Benchmark: the relevance aligner's row precision and recall on the hand-checked gold set.

The gold set (tests/data/relevance_gold_alpha1.tsv, how it was made: tests/data/README.md)
lists, for alpha1 ENTAIL/CONTRADICT pairs, the rows a careful reader needs. Its `batch`
column says which part was used while writing the aligner (`dev`) and which was held out
(`heldout`, never looked at while tuning); the goal (both at least 0.8) is for the held-out part.
As a baseline the same numbers are printed for "every row is relevant" and for "the row with the
most hypothesis words".

    .venv/bin/python bench/relevance.py --infotabs ../shared/infotabs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tabprobe import relevance
from tabprobe.infotabs import ingest_split, load_tables

GOLD = Path(__file__).resolve().parent.parent / "tests" / "data" / "relevance_gold_alpha1.tsv"


def read_gold(path: Path = GOLD) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [
        dict(zip(header, line.split("\t"))) | {"keys": json.loads(line.split("\t")[header.index("relevant_keys")])}
        for line in lines[1:]
        if line.strip()
    ]


def evaluate(infotabs: str, gold_rows: list[dict], settings: relevance.AlignerSettings | None = None) -> dict:
    """Precision/recall of the aligner and of two baselines, per batch and over all."""
    settings = settings or relevance.AlignerSettings()
    split = ingest_split(infotabs, "alpha1")
    tables = load_tables(split.tables)
    hypotheses = dict(zip(split.examples["uid"].to_pylist(), split.examples["hypothesis"].to_pylist()))
    methods = {
        "aligner": lambda h, t: relevance.align(h, t, settings),
        "baseline: every row": lambda h, t: list(t.keys),
        "baseline: best-scoring row only": lambda h, t: (
            [max(zip(relevance.row_scores(h, t, settings), t.keys))[1]] if t.rows else []
        ),
    }
    results = {}
    for part in ["all"] + sorted({g["batch"] for g in gold_rows}):
        rows = [g for g in gold_rows if part in ("all", g["batch"])]
        gold = {g["uid"]: g["keys"] for g in rows}
        results[part] = {
            name: relevance.precision_recall(
                {g["uid"]: method(hypotheses[g["uid"]], tables[g["table_id"]]) for g in rows}, gold
            )
            for name, method in methods.items()
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    results = evaluate(args.infotabs, read_gold())
    for part, methods in results.items():
        for name, r in methods.items():
            print(
                f"{part:8s} {name:32s} precision {r['precision']:.3f} recall {r['recall']:.3f} "
                f"({r['examples']} examples, {r['gold_rows']} gold rows, {r['predicted_rows']} predicted)"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    heldout = results.get("heldout", results["all"])["aligner"]
    met = heldout["precision"] >= 0.8 and heldout["recall"] >= 0.8
    print(f"goal (held-out precision and recall >= 0.8): {'met' if met else 'NOT met'}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
