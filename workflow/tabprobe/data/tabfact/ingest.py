"""A raw TabFact split into its examples, tables and (for the bootstrap split) programs, the Parquet
contracts of schemas.py: read and checked by reading.py; rules check_tabfact and ingest_tabfact.

Labels: 1 (ENTAILED) -> "E", 0 (REFUTED) -> "C". A statement has no id of its own in TabFact, so its
uid is "{split}:{table id}:{index in its table's list}" (the README's advice): stable across runs, and
the same index as in the file, so a reader can find the statement again.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from tabprobe import logs, schemas
from tabprobe.data.datasets import warn_duplicates_kept
from tabprobe.data.relational import table as relational
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tabfact import contracts, programs
from tabprobe.data.tabfact.reading import (
    BOOTSTRAP,
    BOOTSTRAP_SPLITS,
    CLEANED_KINDS,
    NO_CAPTION,
    SPLITS,
    TABLE_ID_PATTERN,
    TEST_SUBSETS,
    Duplicate,
    TableStatements,
    add_entry_problem,
    bootstrap_json,
    find_duplicates,
    raise_if_any,
    read_captions,
    read_json,
    read_statements,
    read_table,
    read_table_ids,
    split_ids_json,
    statements_json,
    tables_dir,
)
from tabprobe.errors import Problem
from tabprobe.io import write_json, write_parquet

log = logging.getLogger(__name__)

LABEL_OF = {1: "E", 0: "C"}
# Git blob ids of tokenized_data/train_examples.json (../shared/tabfact/README.md and SOURCE.md).
RECONSTRUCTED_TRAIN_BLOB = "11d36aec4e8628883e4c981f9c59e99d2e50f5a5"
UPSTREAM_TRAIN_BLOB = "ec8df38f7ba5ff474333dd6a74d71b53cb548ac4"
TRAIN_RECONSTRUCTION = (
    "tokenized_data/train_examples.json is reconstructed, not the upstream file: it was rebuilt from "
    "github.com/ousuixin/SASP (commit and paths in SOURCE.md), data/tabfact/data_shard/train_shard_90-{0..89}.jsonl; "
    "'%' characters attached to a number are lost (about 0.9% of statements)."
)
BOOTSTRAP_FIX = (
    "correct the entries named above: each is [statement, null, caption, null, program], and a program is "
    "name{argument; argument} of the grammar (docs/tabfact.md) followed by =True or =False"
)
STATEMENTS_FIX = (
    "correct the entries named above (table id -> [statements, labels 0/1 of the same length, caption]; "
    "every table id needs its file data/all_csv/<table id>, # -separated with one field per header cell), "
    "or point tabfact_dir at an intact copy"
)


@dataclass
class IngestedSplit:
    split: str
    examples: pa.Table
    tables: pa.Table
    duplicates: list[Duplicate]
    # header cells renamed by reading.name_header, and the tables that had one, by kind
    cleaned_cells: dict[str, int]
    cleaned_tables: dict[str, int]
    provenance: dict
    programs: pa.Table | None = None  # the bootstrap split's programs (contracts.PROGRAMS)
    program_outcomes: dict = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        labels = Counter(self.examples["label"].to_pylist())
        summary = {
            "examples": self.examples.num_rows,
            "tables": self.tables.num_rows,
            "labels": {label: labels[label] for label in ("E", "C")},
            "duplicates": {
                "repeats": len(self.duplicates),
                "with_both_labels": sum(d.both_labels for d in self.duplicates),
                "where": [
                    {
                        "table_id": d.table_id,
                        "index": d.index,
                        "first_index": d.first_index,
                        "both_labels": d.both_labels,
                    }
                    for d in self.duplicates
                ],
            },
            "cleaned_header_cells": self.cleaned_cells,
            "tables_with_cleaned_header": self.cleaned_tables,
            "provenance": self.provenance,
        }
        if self.programs is not None:
            summary["programs"] = self.program_outcomes
        return summary


def git_blob_id(path: Path) -> str:
    """Git's id of a file's bytes (sha1 of "blob <size>\\0" + the bytes), as SOURCE.md lists them."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def provenance(root: Path, split: str) -> dict:
    """Where the split's statements come from, for the run record: train's file is a reconstruction
    where the folder is ../shared/tabfact, so its blob id says which file this is."""
    if split == BOOTSTRAP:
        return {
            "statements": "bootstrap/bootstrap.json",
            "origin": "upstream",
            "note": "raw (not lemmatised) entailed statements of val and test tables, each with a human-written "
            "program; kept where the program evaluates to its label on the table",
        }
    source = "test" if split in TEST_SUBSETS else split
    found = {"statements": f"tokenized_data/{source}_examples.json"}
    if split in TEST_SUBSETS:
        found["tables"] = f"data/{split}_id.json"
    if source != "train":
        return {**found, "origin": "upstream"}
    blob = git_blob_id(statements_json(root, "train"))
    if blob == UPSTREAM_TRAIN_BLOB:
        return {**found, "origin": "upstream", "git_blob": blob}
    if blob == RECONSTRUCTED_TRAIN_BLOB:
        return {**found, "origin": "reconstructed", "git_blob": blob, "note": TRAIN_RECONSTRUCTION}
    return {
        **found,
        "origin": "unknown",
        "git_blob": blob,
        "note": f"neither the upstream file ({UPSTREAM_TRAIN_BLOB[:12]}) nor the reconstruction "
        f"({RECONSTRUCTED_TRAIN_BLOB[:12]}) of ../shared/tabfact",
    }


def statement_entries(root: Path, split: str, problems: list[Problem]) -> tuple[Path, list[TableStatements]]:
    """The statements file of a split and its entries; a test subset keeps the test entries of its tables."""
    source = "test" if split in TEST_SUBSETS else split
    path = statements_json(root, source)
    refused: set[str] = set()
    entries = read_statements(path, problems, refused)
    if split in TEST_SUBSETS:
        ids_path = split_ids_json(root, split)
        wanted = read_table_ids(ids_path, problems)
        # A refused entry is a problem at its own line already: its table has statements.
        known = {entry.table_id for entry in entries} | refused
        for table_id in wanted:
            if entries and table_id not in known:
                problems.append(Problem(str(ids_path), None, f"table {table_id!r} has no statements in {path}"))
        wanted_set = set(wanted)
        entries = [entry for entry in entries if entry.table_id in wanted_set]
    return path, entries


def bootstrap_entries(root: Path, problems: list[Problem]) -> tuple[Path, list[TableStatements], dict[str, list[str]]]:
    """The bootstrap.json entries of val and test tables: statements labelled by their program's
    `=True` / `=False` suffix (all are `=True` upstream), and the programs by table id."""
    path = bootstrap_json(root)
    data = read_json(path, problems)
    split_tables: set[str] = set()
    for split in BOOTSTRAP_SPLITS:
        split_tables.update(read_table_ids(split_ids_json(root, split), problems))
    if data is None:
        return path, [], {}
    if not isinstance(data, dict):
        problems.append(Problem(str(path), 1, "expected a JSON object: table id -> list of entries"))
        return path, [], {}
    entries, table_programs = [], {}
    for table_id, items in data.items():
        if table_id not in split_tables:
            continue
        shaped = isinstance(items, list) and items and all(_bootstrap_item_ok(item) for item in items)
        if not TABLE_ID_PATTERN.match(table_id) or not shaped:
            add_entry_problem(problems, path, table_id, BOOTSTRAP_FIX)
            continue
        malformed = [(index, why) for index, item in enumerate(items) if (why := _program_problem(item[4]))]
        for index, why in malformed:
            add_entry_problem(problems, path, table_id, f"program {index} (counted from 0) {why}")
        if malformed:
            continue
        labels = tuple(0 if programs.split_expected(item[4])[1] is False else 1 for item in items)
        caption = items[0][2] if isinstance(items[0][2], str) and items[0][2].strip() else None
        entries.append(TableStatements(table_id, tuple(item[0] for item in items), labels, caption))
        table_programs[table_id] = [item[4] for item in items]
    return path, entries, table_programs


def _program_problem(program: str) -> str | None:
    """Why a program of bootstrap.json is no program (its text, not its fit to the table), or None. All 1,499
    upstream programs parse, so one that does not is damage, as a ragged table is: ingest stops on it. A
    program that names a column its table lacks, or evaluates to False, is an annotator's slip instead: its
    statement is dropped and counted (execute_programs)."""
    if programs.split_expected(program)[1] is None:
        return f"has no `=True` or `=False` after it, which gives the statement's label: {programs.shown(program)}"
    try:
        programs.parse(program)
    except programs.ProgramSyntaxError as error:
        return f"is malformed: {error}"
    return None


def _bootstrap_item_ok(item) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 5
        and isinstance(item[0], str)
        and bool(item[0].strip())
        and isinstance(item[4], str)
    )


def read_tables(
    root: Path, source: Path, entries: list[TableStatements], problems: list[Problem]
) -> tuple[dict[str, RelationalTable], Counter, Counter]:
    """The table of every entry (a missing file is a problem at the entry's line), titled by
    data/table_to_page.json, else the entry's caption, else "none"; the header cells renamed
    (cells and tables, by kind)."""
    captions = read_captions(root, problems)
    tables: dict[str, RelationalTable] = {}
    cells: Counter = Counter()
    cleaned_tables: Counter = Counter()
    for entry in entries:
        path = tables_dir(root) / entry.table_id
        if not path.is_file():
            add_entry_problem(problems, source, entry.table_id, f"no file {path}")
            continue
        title = captions.get(entry.table_id) or entry.caption or NO_CAPTION
        table_cells: Counter = Counter()
        table = read_table(path, entry.table_id, title, problems, table_cells)
        if table is not None:
            tables[entry.table_id] = table
            cells.update(table_cells)
            cleaned_tables.update(kind for kind in table_cells if table_cells[kind])
    return tables, cells, cleaned_tables


def ingest_split(root: str | Path, split: str, on_duplicate: str = "warn") -> IngestedSplit:
    """Read and validate one split of a TabFact folder into the examples and tables contracts (and,
    for "bootstrap", the programs that hold on their tables)."""
    if split not in SPLITS:
        raise ValueError(f"unknown TabFact split {split!r}; expected one of {', '.join(SPLITS)}")
    if on_duplicate not in ("warn", "error"):
        raise ValueError(f"on_duplicate must be 'warn' or 'error', not {on_duplicate!r}")
    root = Path(root)
    problems: list[Problem] = []
    table_programs: dict[str, list[str]] = {}
    if split == BOOTSTRAP:
        source, entries, table_programs = bootstrap_entries(root, problems)
    else:
        source, entries = statement_entries(root, split, problems)
    tables, cells, cleaned_tables = read_tables(root, source, entries, problems)
    if not entries and not problems:
        problems.append(Problem(str(source), None, f"no statements for split {split!r}"))
    raise_if_any(problems, fix=BOOTSTRAP_FIX if split == BOOTSTRAP else STATEMENTS_FIX)

    duplicates = find_duplicates(entries)
    _report_duplicates(source, duplicates, on_duplicate)
    uids = {
        entry.table_id: [f"{split}:{entry.table_id}:{i}" for i in range(len(entry.statements))] for entry in entries
    }
    program_table, outcomes, kept = None, {}, None
    if split == BOOTSTRAP:
        program_table, outcomes, kept = execute_programs(tables, table_programs, uids)
    rows = [
        (uid, entry.table_id, statement, LABEL_OF[label])
        for entry in entries
        for uid, statement, label in zip(uids[entry.table_id], entry.statements, entry.labels)
        if kept is None or uid in kept
    ]
    used = dict.fromkeys(table_id for _, table_id, _, _ in rows)  # in order of first use
    examples = pa.table(
        {name: [row[i] for row in rows] for i, name in enumerate(("uid", "table_id", "hypothesis", "label"))},
        schema=schemas.EXAMPLES,
    )
    records = [tables[table_id].to_arrow() for table_id in used]
    if cells:
        log.info("%s: header cells renamed: %s", source, ", ".join(f"{cells[k]} {k.replace('_', ' ')}" for k in cells))
    return IngestedSplit(
        split=split,
        examples=examples,
        tables=pa.Table.from_pylist(records, schema=relational.RELATIONAL_TABLES),
        duplicates=duplicates,
        cleaned_cells={kind: cells[kind] for kind in CLEANED_KINDS},
        cleaned_tables={kind: cleaned_tables[kind] for kind in CLEANED_KINDS},
        provenance=provenance(root, split),
        programs=program_table,
        program_outcomes=outcomes,
    )


def _report_duplicates(source: Path, duplicates: list[Duplicate], on_duplicate: str) -> None:
    """Statements repeated within a table: kept with a warning (val and test have 38 and 35), or
    refused with `on_duplicate="error"`."""
    if not duplicates:
        return
    if on_duplicate == "error":
        raise_if_any(
            [
                Problem(
                    str(source), None, f"table {d.table_id!r}: statement {d.index} repeats statement {d.first_index}"
                )
                for d in duplicates
            ],
            fix="remove the repeated statements, or set `duplicates: warn` in config to keep them "
            "(the official TabFact files have a few)",
        )
    both = sum(d.both_labels for d in duplicates)
    log.warning(
        "%s: %d statements repeat an earlier one of their table, %d of them with both labels (kept)",
        source,
        len(duplicates),
        both,
    )


def execute_programs(
    tables: dict[str, RelationalTable], table_programs: dict[str, list[str]], uids: dict[str, list[str]]
) -> tuple[pa.Table, dict, set[str]]:
    """Run every bootstrap program (each parsed already: bootstrap_entries) on its table as ingested (header
    names made distinct): a program is kept when it evaluates to the value after its `=` (True upstream);
    the others are counted, as evaluated-false, as programs that cannot be run soundly (they order text), or
    failed by the executor's reason, and their statements dropped."""
    rows: dict[str, list] = {"uid": [], "program": [], "records_read": [], "columns_read": []}
    counts: Counter = Counter()
    failed: Counter = Counter()
    for table_id, texts in table_programs.items():
        table = tables[table_id]
        for uid, program in zip(uids[table_id], texts):
            try:
                outcome = programs.execute(program, table.header, table.records)
            except programs.UnsoundProgramError:
                counts["cannot_run_soundly"] += 1
                continue
            except programs.ProgramError as error:
                failed[type(error).__name__] += 1
                continue
            if not outcome.agrees:
                counts["evaluated_false"] += 1
                continue
            counts["kept"] += 1
            for name, value in zip(rows, (uid, program, list(outcome.records_read), list(outcome.columns_read))):
                rows[name].append(value)
    outcomes = {
        "programs": counts.total() + sum(failed.values()),
        "kept": counts["kept"],
        "evaluated_false": counts["evaluated_false"],
        "cannot_run_soundly": counts["cannot_run_soundly"],
        "failed": dict(sorted(failed.items())),
    }
    return pa.table(rows, schema=contracts.PROGRAMS), outcomes, set(rows["uid"])


def check_tabfact(root: str, split: str, out: str, on_duplicate: str = "warn") -> None:
    """Read and validate a split without writing its results: bad input stops here, before the
    results of an earlier ingest are touched. `out` records what was checked."""
    ingested = ingest_split(root, split, on_duplicate=on_duplicate)
    write_json(
        {
            "split": split,
            "source": str(root),
            "examples": ingested.examples.num_rows,
            "tables": ingested.tables.num_rows,
            "provenance": ingested.provenance,
        },
        out,
    )
    log.info(
        "%s: %d statements over %d tables are well formed", split, ingested.examples.num_rows, ingested.tables.num_rows
    )
    if ingested.provenance.get("origin") != "upstream":
        log.warning("%s: %s", split, ingested.provenance.get("note", ""), extra=logs.TERMINAL)
    places = [f"{d.table_id}[{d.index}] repeats [{d.first_index}]" for d in ingested.duplicates]
    warn_duplicates_kept(log, split, "statements", places)


def ingest_tabfact(
    root: str,
    split: str,
    examples_out: str,
    tables_out: str,
    summary_out: str,
    programs_out: str | None = None,
    on_duplicate: str = "warn",
) -> None:
    """Write a split's examples, tables and summary (and the bootstrap split's programs: a split
    without programs writes an empty programs file where one is asked for)."""
    if split == BOOTSTRAP and programs_out is None:
        raise ValueError("the bootstrap split needs programs_out: its examples are defined by their programs")
    ingested = ingest_split(root, split, on_duplicate=on_duplicate)
    write_parquet(ingested.examples, examples_out, schemas.EXAMPLES)
    write_parquet(ingested.tables, tables_out, relational.RELATIONAL_TABLES)
    if programs_out is not None:
        found = ingested.programs if ingested.programs is not None else contracts.PROGRAMS.empty_table()
        write_parquet(found, programs_out, contracts.PROGRAMS)
    write_json({"split": split, "source": str(root), **ingested.summary}, summary_out)
    log.info("%s: %d statements over %d tables", split, ingested.examples.num_rows, ingested.tables.num_rows)
    if split == BOOTSTRAP:
        outcomes = ingested.program_outcomes
        log.info(
            "bootstrap: %d of %d programs hold on their table and are kept; %d evaluate to False, %d cannot be "
            "run soundly (they order text), %d fail (%s)",
            outcomes["kept"],
            outcomes["programs"],
            outcomes["evaluated_false"],
            outcomes["cannot_run_soundly"],
            sum(outcomes["failed"].values()),
            ", ".join(f"{count} {reason}" for reason, count in outcomes["failed"].items()) or "none",
        )
