"""Ledger's raw files into tabprobe's Parquet contracts: `<dir>/tables.json` (a list of {id, title,
rows: [[key, [values...]], ...]}) and `<dir>/<split>.jsonl` (one {table, statement, label} a line,
label TRUE or FALSE). The check reads and validates a split; the ingest writes it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infobox.table import TABLES, Row, Table
from tabprobe.errors import InputDataError, Problem
from tabprobe.io import sha256_file, write_json, write_parquet

LABELS = {"TRUE": "E", "FALSE": "C"}


def _read(root: str, split: str) -> tuple[pa.Table, pa.Table]:
    root_path = Path(root)
    problems = []
    tables_file = root_path / "tables.json"
    tables = {}
    for entry in json.loads(tables_file.read_text(encoding="utf-8")):
        rows = tuple(Row(key, tuple(values)) for key, values in entry["rows"])
        tables[entry["id"]] = Table(entry["id"], entry["title"], rows, None)
    statements = root_path / f"{split}.jsonl"
    examples = []
    for line, text in enumerate(statements.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(text)
        if record["label"] not in LABELS:
            problems.append(Problem(str(statements), line, f"label {record['label']!r} is not TRUE or FALSE"))
        elif record["table"] not in tables:
            problems.append(Problem(str(statements), line, f"table {record['table']!r} is not in {tables_file}"))
        else:
            examples.append(
                {
                    "uid": f"{split}:{line}",
                    "table_id": record["table"],
                    "hypothesis": record["statement"],
                    "label": LABELS[record["label"]],
                }
            )
    if problems:
        raise InputDataError(problems, "write TRUE or FALSE, and name a table of tables.json")
    used = sorted({e["table_id"] for e in examples})
    return (
        pa.Table.from_pylist(examples, schema=schemas.EXAMPLES),
        pa.Table.from_pylist([tables[t].to_arrow() for t in used], schema=TABLES),
    )


def check_ledger(root: str, split: str, out: str, on_duplicate: str = "warn") -> None:
    examples, tables = _read(root, split)
    write_json({"split": split, "examples": examples.num_rows, "tables": tables.num_rows}, out)


def ingest_ledger(
    root: str, split: str, examples_out: str, tables_out: str, summary_out: str, on_duplicate: str = "warn"
) -> None:
    examples, tables = _read(root, split)
    write_parquet(examples, examples_out, schemas.EXAMPLES)
    write_parquet(tables, tables_out, TABLES)
    write_json({"split": split, "examples": examples.num_rows, "tables": tables.num_rows}, summary_out)


def digest(config, split: str) -> str:
    """What the split's files hold, so that where the copy lies re-runs nothing."""
    root = Path(config["datasets"]["ledger"]["dir"])
    files = [root / "tables.json", root / f"{split}.jsonl"]
    return hashlib.sha256("".join(f"{p.name}\t{sha256_file(p)}\n" for p in files).encode()).hexdigest()


def provenance(config) -> dict:
    return {"source": config["datasets"]["ledger"]["dir"], "written_by": "tests/test_own_dataset.py"}
