"""Replace one cell the statement's program read with another value of its column, and expect what
the program gives on the edited table (issue 35). The cells read are the program's evidence on the
original table: its records (ProgramFacts.records_read, followed by `source_records`) in the
columns it names (ProgramFacts.columns_read). The new value is one another record holds in that
column, so the table stays plausible; whether the label moves is the program's to say (changing
the score a hop compares refutes the statement; changing a cell only a filter kept may not).

Applies to statements with a program (the bootstrap split) that gives the gold label on the
original table; skipped when no cell it read has another value in its column.
"""

from tabprobe.probes.base import NEEDED_ROWS, Example, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import RECORD_EDIT
from tabprobe.probes.tabfact.record_edits import (
    EXPECTED_BY_EXECUTION,
    PROGRAM_PROBE,
    cells_read,
    program_of,
    relabelled,
    relational,
    update_cell,
)


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    facts, before = program_of(example, table, ctx)
    updated, change = update_cell(table, ctx.rng, cells_read(table, facts))
    return [relabelled(example, facts, before, updated, change)]


PROBE = Probe(
    name="program_cell_update",
    verdict_role=Role(
        NEEDED_ROWS, "a cell the program read changed", scorecard="drop when a cell its program read changes"
    ),
    description="Replace a cell the statement's program read with another value of its column; expect the label the program gives after.",
    apply=apply,
    invariants=(*RECORD_EDIT, EXPECTED_BY_EXECUTION),
    **PROGRAM_PROBE,
)
