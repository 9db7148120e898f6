"""Edits of TabFact's relational tables shared by the record probes, and the re-execution of a
statement's program that gives the expected label after an edit.

Each edit returns the new table and a JSON-able record of the change (the provenance column; the
invariants in probes/invariants.py replay it on the gold table). Randomness comes only from the
caller's `rng`, and candidates are gathered in a fixed order (tables sorted by id), so a seeded
choice repeats. A record keeps, in `source_records`, the index it had in the original table: a
program's evidence (indices of the original) is followed through any edit by that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tabfact.programs import Outcome, ProgramError, execute
from tabprobe.probes.base import Example, NotApplicable, ProbeContext, ProbeExample
from tabprobe.probes.invariants import Invariant
from tabprobe.probes.tabfact.needs import ProgramFacts
from tabprobe.probes.tabfact.statement_kinds import KINDS, LOOKUP, statement_kinds

# What every TabFact record probe declares: its two labels, where it is asked for.
TABFACT_PROBE = {"labels": frozenset({"E", "C"}), "paper_reference": "issue 35 (TabFact)"}
# ... and every probe whose expected label its statement's program gives.
# Their expected labels are the programs', executed: they have a section of TabFact's report part.
PROGRAM_PROBE = {
    **TABFACT_PROBE,
    "judged_by": "expected",
    "needs": frozenset({"programs"}),
    "report_section": "executed",
}

# How often a draw that gave an unchanged table or a copied record is repeated before giving up.
_REDRAWS = 50


def relational(table) -> RelationalTable:
    """The table, if it is a relational (TabFact) one; a probe written for TabFact skips any other."""
    if not isinstance(table, RelationalTable):
        raise NotApplicable("not a relational table: the probe is written for TabFact")
    return table


def require_lookup(statement: str, edit: str) -> None:
    """Skip a statement that is not a plain lookup (probes/tabfact/statement_kinds.py), naming its first kind:
    `edit` ("a deleted record") can change a count, a superlative, a comparison or an only/all claim
    either way."""
    kinds = statement_kinds(statement)
    if kinds != {LOOKUP}:
        # The first kind only (KINDS order), so coverage lists at most six reasons, not their combinations.
        first = next(kind for kind in KINDS if kind in kinds)
        raise NotApplicable(f"not a lookup statement ({first}): {edit} can change its label either way")


def describe_record(table: RelationalTable, index: int) -> dict:
    """A record as the provenance names it: where it stands, where it stood in the original, its cells."""
    return {"index": index, "source": table.source_records[index], "cells": list(table.records[index])}


def delete_record(table: RelationalTable, index: int) -> tuple[RelationalTable, dict]:
    kept = [i for i in range(len(table.records)) if i != index]
    edited = table.with_records((table.records[i] for i in kept), (table.source_records[i] for i in kept))
    return edited, {"deleted_record": describe_record(table, index)}


def deletable(table: RelationalTable) -> range:
    """The records a deletion may take: any, as long as one stays (a table without records is no table)."""
    if len(table.records) < 2:
        raise NotApplicable("table has fewer than two records")
    return range(len(table.records))


def random_deletion(table: RelationalTable, rng: np.random.Generator) -> tuple[RelationalTable, dict]:
    candidates = deletable(table)
    return delete_record(table, int(rng.integers(len(candidates))))


def permute_records(table: RelationalTable, rng: np.random.Generator) -> tuple[RelationalTable, dict]:
    """The records in a new order (an order that changes what the table shows: duplicate records
    swapped with each other would be no edit)."""
    n = len(table.records)
    if n < 2 or len(set(table.records)) < 2:
        raise NotApplicable("table has fewer than two different records")
    for _ in range(_REDRAWS):
        order = [int(i) for i in rng.permutation(n)]
        if [table.records[i] for i in order] != list(table.records):
            edited = table.with_records((table.records[i] for i in order), (table.source_records[i] for i in order))
            return edited, {"record_order": order}
    raise NotApplicable("no order of the records changes the table")


def permute_columns(table: RelationalTable, rng: np.random.Generator) -> tuple[RelationalTable, dict]:
    """The columns in a new order, each record's cells moved with its header."""
    n = len(table.header)
    if n < 2:
        raise NotApplicable("table has fewer than two columns")
    for _ in range(_REDRAWS):
        order = [int(i) for i in rng.permutation(n)]
        edited = table.with_columns(order)
        if edited.header != table.header or edited.records != table.records:
            return edited, {"column_order": order}
    raise NotApplicable("no order of the columns changes the table")


# ---------------------------------------------------------------- insertion

# Words a cell may share with the statement without being about what the statement names.
_FUNCTION_WORDS = frozenset("the a an of and in on at to for by - ( ) , . ' & / : vs".split())


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+|[^\w\s]", text.lower()) if w not in _FUNCTION_WORDS}


def unrelated(cells: Sequence[str], statement_words: set[str]) -> bool:
    """Whether no cell shares a content word with the statement: a record the statement cannot be about."""
    return not any(_content_words(cell) & statement_words for cell in cells)


def _same_header_tables(table: RelationalTable, tables: Mapping[str, object], shared: dict) -> list[RelationalTable]:
    """The other tables of the split with exactly this header, by id (the index is built once a split)."""
    index = shared.get("record_edits.by_header")
    if index is None:
        index = {}
        for table_id in sorted(tables):
            other = tables[table_id]
            if isinstance(other, RelationalTable):
                index.setdefault(other.header, []).append(other)
        shared["record_edits.by_header"] = index
    return [other for other in index.get(table.header, []) if other.table_id != table.table_id]


def _donor_records(table, tables, shared, words) -> list[tuple[str, int]]:
    existing = set(table.records)
    return [
        (other.table_id, i)
        for other in _same_header_tables(table, tables, shared)
        for i, record in enumerate(other.records)
        if record not in existing and unrelated(record, words)
    ]


def _recombined(table: RelationalTable, rng: np.random.Generator, words: set[str]) -> tuple[tuple[str, ...], list]:
    """A record made of this table's own cells, column by column, none named by the statement and
    the whole no copy of an existing record."""
    choices = []
    for j in range(len(table.header)):
        usable = [i for i, record in enumerate(table.records) if unrelated([record[j]], words)]
        if not usable:
            raise NotApplicable("no record unrelated to the statement can be made: it names every cell of a column")
        choices.append(usable)
    existing = set(table.records)
    for _ in range(_REDRAWS):
        sources = [int(usable[int(rng.integers(len(usable)))]) for usable in choices]
        record = tuple(table.records[i][j] for j, i in enumerate(sources))
        if record not in existing:
            return record, sources
    raise NotApplicable("every recombination of the table's cells copies one of its records")


def insert_record(table: RelationalTable, statement: str, ctx: ProbeContext) -> tuple[RelationalTable, dict]:
    """A record inserted at a random place: one of another table of the split with the same header
    where there is one, else a recombination of this table's cells column by column. Never a copy
    of an existing record, and none of its cells shares a content word with the statement, so the
    statement cannot be about it."""
    words = _content_words(statement)
    donors = _donor_records(table, ctx.tables, ctx.shared, words)
    if donors:
        table_id, i = donors[int(ctx.rng.integers(len(donors)))]
        record = ctx.tables[table_id].records[i]
        origin = {"from_table": table_id, "from_record": i}
    else:
        record, sources = _recombined(table, ctx.rng, words)
        origin = {"recombined_from": sources}
    at = int(ctx.rng.integers(len(table.records) + 1))
    records = [*table.records[:at], record, *table.records[at:]]
    sources_after = [*table.source_records[:at], None, *table.source_records[at:]]
    change = {"inserted_record": {"index": at, "cells": list(record), **origin}}
    return table.with_records(records, sources_after), change


# ---------------------------------------------------------------- cell update


def _normal(cell: str) -> str:
    return " ".join(cell.lower().split())


def update_cell(
    table: RelationalTable, rng: np.random.Generator, cells: Sequence[tuple[int, int]]
) -> tuple[RelationalTable, dict]:
    """One of `cells` ((record, column) pairs) replaced by another value of its column: a value another
    record holds there, different from the old one and not empty."""
    options = []
    for record, column in cells:
        old = _normal(table.records[record][column])
        others = sorted(
            {r[column] for r in table.records if _normal(r[column]) not in (old, "")}, key=lambda v: (_normal(v), v)
        )
        if others:
            options.append((record, column, others))
    if not options:
        raise NotApplicable("no cell to update has another value in its column")
    record, column, others = options[int(rng.integers(len(options)))]
    new = others[int(rng.integers(len(others)))]
    records = list(table.records)
    old = records[record][column]
    records[record] = tuple(new if j == column else cell for j, cell in enumerate(records[record]))
    change = {
        "updated_cell": {"record": record, "column": column, "name": table.header[column], "old": old, "new": new}
    }
    return table.with_records(records, table.source_records), change


# ---------------------------------------------------------------- programs


def program_of(example: Example, table: RelationalTable, ctx: ProbeContext) -> tuple[ProgramFacts, Outcome]:
    """The example's program and its outcome on `table` (the gold table), whose result must be the gold label.
    A program that cannot run, or cannot run soundly (it orders text: UnsoundProgramError), is skipped."""
    programs = ctx.needs.get("programs")
    if programs is None:
        raise NotApplicable("no programs were given (the probe reads the bootstrap split's programs)")
    facts = programs.get(example.uid)
    if facts is None:
        raise NotApplicable("the statement has no program (only the bootstrap split's statements have one)")
    try:
        before = execute(facts.program, table.header, table.records)
    except ProgramError as error:
        raise NotApplicable(f"the program does not run on the original table ({type(error).__name__})") from None
    if label_of(before.result) != example.label:
        raise NotApplicable("the program does not give the gold label on the original table")
    return facts, before


def label_of(result: bool) -> str:
    """A program's result as a TabFact label: True -> E (ENTAILED), False -> C (REFUTED)."""
    return "E" if result else "C"


def records_read(table: RelationalTable, facts: ProgramFacts) -> list[int]:
    """The records of `table` the program read on the original table, found by where they stood there."""
    read = set(facts.records_read)
    return [i for i, source in enumerate(table.source_records) if source is not None and source in read]


def cells_read(table: RelationalTable, facts: ProgramFacts) -> list[tuple[int, int]]:
    """(record, column) of `table` the program read: its records' cells in the columns it named."""
    columns = [j for j, name in enumerate(table.header) if name in set(facts.columns_read)]
    return [(i, j) for i in records_read(table, facts) for j in columns]


def relabelled(
    example: Example, facts: ProgramFacts, before: Outcome, edited: RelationalTable, change: dict
) -> ProbeExample:
    """The edited table with the label its program gives there, read as it read the original (`before`:
    programs.execute's `like`, so that a filter that took the one `back` takes no `running back` once that
    record is gone), and what was edited and found. Skipped where the program cannot run there, or cannot
    run soundly (UnsoundProgramError)."""
    try:
        after = execute(facts.program, edited.header, edited.records, like=before)
    except ProgramError as error:
        raise NotApplicable(f"the program does not run on the edited table ({type(error).__name__})") from None
    provenance = {
        **change,
        "program": facts.program,
        "readings": list(before.readings),
        "result_before": before.result,
        "result_after": after.result,
    }
    return ProbeExample(example.hypothesis, edited, expected=label_of(after.result), provenance=provenance)


def program_deletion(
    example: Example, table, ctx: ProbeContext, candidates: Callable[[RelationalTable, ProgramFacts], list[int]]
) -> list[ProbeExample]:
    """One of the `candidates` records (a function of the table and the program's evidence, raising
    NotApplicable when there is none) deleted at random, the label recomputed by the program."""
    table = relational(table)
    facts, before = program_of(example, table, ctx)
    options = candidates(table, facts)
    deleted, change = delete_record(table, options[int(ctx.rng.integers(len(options)))])
    return [relabelled(example, facts, before, deleted, change)]


def _expected_by_execution(example, table, out):
    """The program run on the new table as it read the gold one (programs.execute's `like`)."""
    try:
        before = execute(out.provenance["program"], table.header, table.records)
        result = execute(out.provenance["program"], out.table.header, out.table.records, like=before).result
    except (KeyError, ProgramError) as error:
        return f"the recorded program does not run on the gold table or the new one: {error!r}"
    if label_of(result) != out.expected:
        return f"the program gives {label_of(result)} on the new table, the example expects {out.expected}"
    if result != out.provenance.get("result_after"):
        return f"the recorded result after the edit is {out.provenance.get('result_after')}, the program gives {result}"
    return None


EXPECTED_BY_EXECUTION = Invariant("expects what its program gives on the new table", _expected_by_execution)
