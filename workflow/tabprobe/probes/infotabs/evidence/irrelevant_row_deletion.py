"""Delete one row the hypothesis does not need, at random (paper appendix, Figure 10, Table 16).

No prediction may change. Examples whose relevance source names no row are skipped: without
knowing the evidence, no row can be called irrelevant.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import (
    OTHER_ROWS,
    Example,
    NotApplicable,
    PaperNumbers,
    Probe,
    ProbeContext,
    ProbeExample,
    Role,
)
from tabprobe.probes.infotabs.evidence_edits import describe_rows, relevant_indices, without_rows
from tabprobe.probes.invariants import TABLE_EDIT
from tabprobe.probes.transitions import PAPER, transition_rule


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


# Which changes of prediction the edit allows (the paper's text).
RULE = transition_rule("irrelevant_row_deletion", PAPER, E="E", N="N", C="C")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 10",
    table="Table 16",
    invalid_transition_pct={
        "E": {"alpha1": 5.14, "alpha2": 6.97, "alpha3": 6.09},
        "N": {"alpha1": 3.9, "alpha2": 3.54, "alpha3": 5.01},
        "C": {"alpha1": 5.94, "alpha2": 5.09, "alpha3": 6.91},
    },
)


PROBE = Probe(
    name="irrelevant_row_deletion",
    verdict_role=Role(OTHER_ROWS, "an irrelevant row deleted"),
    description="Delete one row the hypothesis does not need (by the relevance source).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="appendix, Figure 10, Table 16",
    needs=frozenset({"relevance"}),
    invariants=TABLE_EDIT,
)
