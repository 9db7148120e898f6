"""Shuffle the order of the rows (paper section 5.1, appendix Table 15). Order carries no meaning
in an infobox, so no prediction may change."""

import numpy as np

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, NotApplicable, PaperNumbers, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, ROWS_REORDERED
from tabprobe.probes.transitions import PAPER, transition_rule


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


# Which changes of prediction the edit allows (the paper's text).
RULE = transition_rule("row_permutation", PAPER, E="E", N="N", C="C")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 9",
    table="Table 15",
    invalid_transition_pct={
        "E": {"alpha1": 9.25, "alpha2": 12.2, "alpha3": 14.6},
        "N": {"alpha1": 7.1, "alpha2": 6.8, "alpha3": 12.5},
        "C": {"alpha1": 11.6, "alpha2": 8.76, "alpha3": 13.7},
    },
)


PROBE = Probe(
    name="row_permutation",
    description="Shuffle the order of the table's rows.",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="section 5.1, appendix Table 15",
    invariants=(HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, ROWS_REORDERED),
)
