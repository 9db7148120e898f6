"""Delete one row of the table, chosen at random (paper section 5.1, Figure 3, Table 5).

Relevance-agnostic: the deleted row may or may not be evidence for the hypothesis, so the
transition rule allows E -> E/N and C -> C/N, and NEUTRAL must stay NEUTRAL.
"""

from ..table import Table
from .base import Example, Probe, ProbeContext, ProbeExample
from .invariants import TABLE_EDIT
from .table_edits import delete_row


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    deleted, change = delete_row(table, ctx.rng)
    return [ProbeExample(example.hypothesis, deleted, expected=None, provenance=change)]


PROBE = Probe(
    name="row_deletion",
    description="Delete one randomly chosen row of the table.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_deletion",
    paper_reference="section 5.1, Figure 3, Table 5",
    invariants=TABLE_EDIT,
)
