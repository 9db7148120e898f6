"""Delete one record the statement's program did not read, and expect what the program gives on the
edited table (issue 35): by the executor's own account (programs.Outcome.records_read) a record no
counting, ranking, hop or all_* function read cannot move the result, so the expected label is the
gold one, and an invariant holds the probe to that: an example where execution disagrees is dropped
and counted, never written with a changed label.

Applies to statements with a program (the bootstrap split) that gives the gold label on the
original table; skipped when the program read every record.
"""

from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes.base import OTHER_ROWS, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import EXPECTS_GOLD, RECORD_EDIT
from tabprobe.probes.tabfact.needs import ProgramFacts
from tabprobe.probes.tabfact.record_edits import (
    EXPECTED_BY_EXECUTION,
    PROGRAM_PROBE,
    deletable,
    program_deletion,
    records_read,
)


def candidates(table: RelationalTable, facts: ProgramFacts) -> list[int]:
    read = set(records_read(table, facts))
    others = [i for i in deletable(table) if i not in read]
    if not others:
        raise NotApplicable("the program read every record of the table")
    return others


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return program_deletion(example, table, ctx, candidates)


PROBE = Probe(
    name="irrelevant_record_deletion",
    verdict_role=Role(
        OTHER_ROWS,
        "records the program never read deleted",
        scorecard="drop when records its program never read are deleted",
    ),
    description="Delete a record the statement's program did not read; the label must stay (checked by execution).",
    apply=apply,
    invariants=(*RECORD_EDIT, EXPECTED_BY_EXECUTION, EXPECTS_GOLD),
    **PROGRAM_PROBE,
)
