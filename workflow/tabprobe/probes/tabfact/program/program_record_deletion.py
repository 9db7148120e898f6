"""Delete one record of a TabFact table at random, and expect what the statement's program gives
on the edited table (issue 35: where a program exists, the label after a table edit is recomputed
by executing it). A deleted record that a `count` needed turns ENTAILED into REFUTED, and the
example says so.

Applies to statements that come with a human-written program (the bootstrap split, ctx.need("programs"))
whose program gives the gold label on the original table; a program that does not run on the
edited table is skipped with the reason.
"""

from tabprobe.probes.base import ANY_ROWS, Example, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import RECORD_EDIT
from tabprobe.probes.tabfact.record_edits import EXPECTED_BY_EXECUTION, PROGRAM_PROBE, deletable, program_deletion


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return program_deletion(example, table, ctx, lambda edited, facts: list(deletable(edited)))


PROBE = Probe(
    name="program_record_deletion",
    verdict_role=Role(ANY_ROWS, "any record deleted"),
    description="Delete a random record of a TabFact table; expect the label its program gives after.",
    apply=apply,
    invariants=(*RECORD_EDIT, EXPECTED_BY_EXECUTION),
    **PROGRAM_PROBE,
)
