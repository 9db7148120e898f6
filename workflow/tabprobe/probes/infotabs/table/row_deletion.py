"""Delete one row of the table, chosen at random (paper section 5.1, Figure 3, Table 5).

Relevance-agnostic: the deleted row may or may not be evidence for the hypothesis, so the
transition rule allows E -> E/N and C -> C/N, and NEUTRAL must stay NEUTRAL.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, PaperNumbers, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.table_edits import delete_row
from tabprobe.probes.invariants import TABLE_EDIT
from tabprobe.probes.transitions import PAPER, transition_rule


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    deleted, change = delete_row(table, ctx.rng)
    return [ProbeExample(example.hypothesis, deleted, expected=None, provenance=change)]


# Which changes of prediction the edit allows (the paper's text).
RULE = transition_rule("row_deletion", PAPER, E="EN", N="N", C="CN")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 3",
    table="Table 5",
    invalid_transition_pct={
        "E": {"alpha1": 5.76, "alpha2": 7.26, "alpha3": 5.01},
        "N": {"alpha1": 4.43, "alpha2": 3.91, "alpha3": 5.24},
        "C": {"alpha1": 3.23, "alpha2": 3.7, "alpha3": 3.01},
    },
)


PROBE = Probe(
    name="row_deletion",
    description="Delete one randomly chosen row of the table.",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="section 5.1, Figure 3, Table 5",
    invariants=TABLE_EDIT,
)
