"""Delete one row the hypothesis does not need, at random (paper appendix, Figure 10, Table 16).

No prediction may change. Examples whose relevance source names no row are skipped: without
knowing the evidence, no row can be called irrelevant.
"""

from ..table import Table
from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .evidence_edits import describe_rows, relevant_indices, without_rows
from .invariants import TABLE_EDIT


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    relevant = set(relevant_indices(example, table, ctx))
    others = [i for i in range(len(table.rows)) if i not in relevant]
    if not others:
        raise NotApplicable("every row is relevant")
    return [
        ProbeExample(
            example.hypothesis,
            without_rows(table, {i}),
            expected=None,
            provenance={"deleted_row": describe_rows(table, [i])[0]},
        )
        for i in others
    ]


PROBE = Probe(
    name="irrelevant_row_deletion",
    description="Delete one row the hypothesis does not need (by the relevance source).",
    apply=apply,
    judged_by="transitions",
    transition_rule="irrelevant_row_deletion",
    paper_reference="appendix, Figure 10, Table 16",
    needs_relevance=True,
    invariants=TABLE_EDIT,
)
