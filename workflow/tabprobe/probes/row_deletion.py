"""Delete one row of the table, chosen at random (paper section 5.1, Figure 3, Table 5).

Relevance-agnostic: the deleted row may or may not be evidence for the hypothesis, so the
transition rule allows E -> E/N and C -> C/N, and NEUTRAL must stay NEUTRAL.
"""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from ..table import Table


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if not table.rows:
        raise NotApplicable("table has no rows")
    # One candidate per row; the generator samples one per example, as the paper does.
    return [
        ProbeExample(
            example.hypothesis,
            table.with_rows(r for j, r in enumerate(table.rows) if j != i),
            expected=None,
            provenance={"deleted_row": {"index": i, "key": row.key, "values": list(row.values)}},
        )
        for i, row in enumerate(table.rows)
    ]


PROBE = Probe(
    name="row_deletion",
    description="Delete one randomly chosen row of the table.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_deletion",
    paper_reference="section 5.1, Figure 3, Table 5",
)
