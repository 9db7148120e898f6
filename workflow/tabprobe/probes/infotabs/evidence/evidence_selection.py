"""Which rows does the model use? Delete each row in turn (paper section 5.3).

A row whose deletion alone changes the model's prediction is one the model relies on; the
report compares those rows with the relevance source (precision, recall, and the shares of
examples where the model uses all, some, or none of the relevant rows, or ignores the table).
As in the paper, only ENTAIL/CONTRADICT examples with at least one relevant row are used.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import OWN_EVIDENCE, Example, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.infotabs.evidence_edits import describe_rows, relevant_indices, without_rows
from tabprobe.probes.invariants import TABLE_EDIT


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    relevant = set(relevant_indices(example, table, ctx))
    keys = sorted({table.rows[i].key for i in relevant})
    return [
        ProbeExample(
            example.hypothesis,
            without_rows(table, {i}),
            expected=None,
            provenance={"deleted_row": describe_rows(table, [i])[0], "relevant": i in relevant, "relevant_keys": keys},
        )
        for i in range(len(table.rows))
    ]


PROBE = Probe(
    name="evidence_selection",
    verdict_role=Role(OWN_EVIDENCE, "its own evidence"),
    description="Delete each row in turn; rows that move the prediction are the model's evidence.",
    apply=apply,
    judged_by="evidence",
    paper_reference="section 5.3",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"relevance"}),
    one_per_gold=False,
    invariants=TABLE_EDIT,
)
