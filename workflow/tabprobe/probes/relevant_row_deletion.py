"""Delete every row the hypothesis needs (paper section 5.2, Figure 4, Table 6).

With its evidence gone, ENTAIL and CONTRADICT must become NEUTRAL and NEUTRAL stays NEUTRAL.
Which rows are relevant comes from the relevance source (config `relevance`), named in the
report beside every number.
"""

from ..table import Table
from .base import Example, Probe, ProbeContext, ProbeExample
from .evidence_edits import describe_rows, relevant_indices, without_rows
from .invariants import TABLE_EDIT


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    indices = relevant_indices(example, table, ctx)
    return [
        ProbeExample(
            example.hypothesis,
            without_rows(table, set(indices)),
            expected=None,
            provenance={"deleted_rows": describe_rows(table, indices)},
        )
    ]


PROBE = Probe(
    name="relevant_row_deletion",
    description="Delete the rows the hypothesis needs (by the relevance source).",
    apply=apply,
    judged_by="transitions",
    transition_rule="relevant_row_deletion",
    paper_reference="section 5.2, Figure 4, Table 6",
    needs_relevance=True,
    invariants=TABLE_EDIT,
)
