"""Delete every row the hypothesis needs (paper section 5.2, Figure 4, Table 6).

With its evidence gone, ENTAIL and CONTRADICT must become NEUTRAL and NEUTRAL stays NEUTRAL.
Which rows are relevant comes from the relevance source (config `relevance`), named in the
report beside every number.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import NEEDED_ROWS, Example, PaperNumbers, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.infotabs.evidence_edits import describe_rows, relevant_indices, without_rows
from tabprobe.probes.invariants import TABLE_EDIT
from tabprobe.probes.transitions import PAPER, transition_rule


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


# Which changes of prediction the edit allows (the paper's text).
RULE = transition_rule("relevant_row_deletion", PAPER, E="N", N="N", C="N")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 4",
    table="Table 6",
    invalid_transition_pct={
        "E": {"alpha1": 75.41, "alpha2": 74.7, "alpha3": 77.31},
        "N": {"alpha1": 8.39, "alpha2": 6.58, "alpha3": 8.01},
        "C": {"alpha1": 77.02, "alpha2": 81.1, "alpha3": 77.8},
    },
)


PROBE = Probe(
    name="relevant_row_deletion",
    verdict_role=Role(NEEDED_ROWS, "relevant rows deleted"),
    description="Delete the rows the hypothesis needs (by the relevance source).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="section 5.2, Figure 4, Table 6",
    needs=frozenset({"relevance"}),
    invariants=TABLE_EDIT,
)
