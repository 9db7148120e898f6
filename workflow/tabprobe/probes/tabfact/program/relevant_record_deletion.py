"""Delete one record the statement's program read, and expect what the program gives on the edited
table (issue 35). The evidence is the program's: the records its counting, ranking, hop or all_*
functions read on the original table (ProgramFacts.records_read, followed through the edit by
`source_records`). Whether the label changes is the program's to say: deleting one of the records
a count of two needed refutes the statement; deleting one of several records that `filter` then
`hop` could have read may not.

Applies to statements with a program (the bootstrap split) that gives the gold label on the
original table; skipped when the program read no record or nothing else would be left.
"""

from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes.base import NEEDED_ROWS, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import RECORD_EDIT
from tabprobe.probes.tabfact.needs import ProgramFacts
from tabprobe.probes.tabfact.record_edits import (
    EXPECTED_BY_EXECUTION,
    PROGRAM_PROBE,
    deletable,
    program_deletion,
    records_read,
)


def candidates(table: RelationalTable, facts: ProgramFacts) -> list[int]:
    allowed = deletable(table)
    read = [i for i in records_read(table, facts) if i in allowed]
    if not read:
        raise NotApplicable("the program read no record of the table")
    return read


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return program_deletion(example, table, ctx, candidates)


PROBE = Probe(
    name="relevant_record_deletion",
    verdict_role=Role(
        NEEDED_ROWS, "records the program read deleted", scorecard="drop when records its program read are deleted"
    ),
    description="Delete a record the statement's program read; expect the label the program gives after.",
    apply=apply,
    invariants=(*RECORD_EDIT, EXPECTED_BY_EXECUTION),
    **PROGRAM_PROBE,
)
