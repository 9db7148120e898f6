"""A raw InfoTabS split into its examples and tables (the Parquet contracts of schemas.py):
read and checked by reading.py, the release verified by download.py; rules check_infotabs and
ingest_infotabs."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from tabprobe import LABELS, schemas
from tabprobe.data.datasets import warn_duplicates_kept
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Table
from tabprobe.data.infotabs import download
from tabprobe.data.infotabs.cleaning import CLEANED_KINDS
from tabprobe.data.infotabs.reading import (
    SPLIT_FILES,
    SPLITS,
    HypothesisLine,
    _Problems,
    _table_sort_key,
    categories_tsv,
    read_categories,
    read_hypotheses,
    read_table,
    split_tsv,
    tables_dir,
)
from tabprobe.io import write_json, write_parquet

log = logging.getLogger(__name__)


@dataclass
class IngestedSplit:
    examples: pa.Table
    tables: pa.Table
    duplicate_lines: list[tuple[int, int, str]]  # (line, first line, "exact" | "pair")
    # table cells (titles, keys, values) changed by clean_cell, by what was changed
    cleaned: dict[str, int] = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        return {
            "examples": self.examples.num_rows,
            "tables": self.tables.num_rows,
            "labels": {lab: int(sum(1 for x in self.examples["label"].to_pylist() if x == lab)) for lab in LABELS},
            "duplicates": [
                {"line": line, "first_line": first, "kind": kind} for line, first, kind in self.duplicate_lines
            ],
            "cleaned_cells": self.cleaned,
        }


def find_duplicates(hypotheses: list[HypothesisLine]) -> list[tuple[int, int, str]]:
    """(line, first line it repeats, kind): "exact" repeats the whole row, "pair" the table+hypothesis."""
    first_seen: dict[tuple[str, str], HypothesisLine] = {}
    out = []
    for h in hypotheses:
        first = first_seen.setdefault((h.table_id, h.hypothesis), h)
        if first is not h:
            out.append((h.line, first.line, "exact" if first.cells == h.cells else "pair"))
    return out


def ingest_split(root: str | Path, split: str, on_duplicate: str = "warn") -> IngestedSplit:
    """Read and validate one split of an InfoTabS folder into the examples and tables contracts."""
    if split not in SPLIT_FILES:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    if on_duplicate not in ("warn", "error"):
        raise ValueError(f"on_duplicate must be 'warn' or 'error', not {on_duplicate!r}")
    root = Path(root)
    problems = _Problems()
    tsv = split_tsv(root, split)
    hypotheses = read_hypotheses(tsv, problems)
    categories = read_categories(categories_tsv(root), problems)

    tables: dict[str, Table] = {}
    cleaned: Counter = Counter()
    first_use: dict[str, int] = {}
    for h in hypotheses:
        first_use.setdefault(h.table_id, h.line)
    for table_id, line in first_use.items():
        path = tables_dir(root) / f"{table_id}.json"
        if not path.exists() and not path.is_symlink():  # a broken link is read, to say why it fails
            problems.add(tsv, line, f"table {table_id} is missing: no file {path}")
            continue
        table = read_table(path, table_id, categories.get(table_id), problems, cleaned)
        if table is not None:
            tables[table_id] = table
    problems.raise_if_any(
        fix="correct the lines named above (columns are tab-separated; labels are E, N or C; "
        "every table_id needs data/tables/json/<table_id>.json), or point infotabs_dir at an intact copy"
    )

    duplicates = find_duplicates(hypotheses)
    if duplicates:
        described = "; ".join(f"line {line} repeats line {first} ({kind})" for line, first, kind in duplicates)
        if on_duplicate == "error":
            dup_problems = _Problems()
            for line, first, kind in duplicates:
                what = "the whole row" if kind == "exact" else "the table_id and hypothesis"
                dup_problems.add(tsv, line, f"duplicate: repeats {what} of line {first}")
            dup_problems.raise_if_any(
                fix="remove the repeated lines, or set `duplicates: warn` in config to keep them "
                "(the official InfoTabS data has a few)"
            )
        log.warning("%s: %d duplicate hypotheses kept (duplicates: warn): %s", tsv, len(duplicates), described)

    examples = pa.table(
        {
            "uid": [f"{split}:{h.line}" for h in hypotheses],
            "table_id": [h.table_id for h in hypotheses],
            "hypothesis": [h.hypothesis for h in hypotheses],
            "label": [h.label for h in hypotheses],
        },
        schema=schemas.EXAMPLES,
    )
    counts = {kind: cleaned[kind] for kind in CLEANED_KINDS}
    if cleaned:
        log.info(
            "%s: cleaned table cells (titles, keys, values): %s",
            root,
            ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in counts.items()),
        )
    table_records = [tables[t].to_arrow() for t in sorted(tables, key=_table_sort_key)]
    return IngestedSplit(examples, pa.Table.from_pylist(table_records, schema=infobox.TABLES), duplicates, counts)


def check_infotabs(root: str, split: str, out: str, on_duplicate: str = "warn", verify: bool = True) -> None:
    """Rule check_infotabs: read and validate a raw split without writing its results, before ingest
    replaces anything: bad input stops here, before the results of an earlier ingest are touched. `out`
    records what was checked."""
    if verify:
        download.verify(root)
    ingested = ingest_split(root, split, on_duplicate=on_duplicate)
    write_json(
        {
            "split": split,
            "source": str(root),
            "examples": ingested.examples.num_rows,
            "tables": ingested.tables.num_rows,
        },
        out,
    )
    log.info(
        "%s: %d examples over %d tables are well formed", split, ingested.examples.num_rows, ingested.tables.num_rows
    )
    places = [f"line {line} repeats {first}" for line, first, _ in ingested.duplicate_lines]
    warn_duplicates_kept(log, split, "hypotheses", places)


def ingest_infotabs(
    root: str,
    split: str,
    examples_out: str,
    tables_out: str,
    summary_out: str,
    on_duplicate: str = "warn",
    verify: bool = True,
) -> None:
    """Rule ingest_infotabs: a raw split into its examples and tables (Parquet)."""
    if verify:
        download.verify(root)
    ingested = ingest_split(root, split, on_duplicate=on_duplicate)
    write_parquet(ingested.examples, examples_out, schemas.EXAMPLES)
    write_parquet(ingested.tables, tables_out, infobox.TABLES)
    write_json({"split": split, "source": str(root), **ingested.summary}, summary_out)
    log.info("%s: %d examples over %d tables", split, ingested.examples.num_rows, ingested.tables.num_rows)
