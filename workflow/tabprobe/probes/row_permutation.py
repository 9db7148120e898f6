"""Shuffle the order of the rows (paper section 5.1, appendix Table 15). Order carries no meaning
in an infobox, so no prediction may change."""

import numpy as np

from ..table import Table
from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .invariants import HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, ROWS_REORDERED


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    n = len(table.rows)
    if n < 2:
        raise NotApplicable("table has fewer than two rows")
    identity = np.arange(n)
    order = ctx.rng.permutation(n)
    while np.array_equal(order, identity):  # an unchanged order is no probe: draw again
        order = ctx.rng.permutation(n)
    permuted = table.with_rows(table.rows[i] for i in order)
    return [ProbeExample(example.hypothesis, permuted, expected=None, provenance={"order": order.tolist()})]


PROBE = Probe(
    name="row_permutation",
    description="Shuffle the order of the table's rows.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_permutation",
    paper_reference="section 5.1, appendix Table 15",
    invariants=(HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, ROWS_REORDERED),
)
