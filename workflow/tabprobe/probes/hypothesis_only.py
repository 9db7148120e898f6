"""Premise control (InfoTabS paper Table 3): the model sees the hypothesis alone. Accuracy
against the gold label measures what the hypothesis by itself lets the model guess."""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, PREMISE_REPLACED


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    empty = Table(table.table_id, "", (), table.category)  # renders as no premise at all
    return [ProbeExample(example.hypothesis, empty, example.label, {"premise": "none"})]


PROBE = Probe(
    name="hypothesis_only",
    description="No premise: the hypothesis alone (scored against the gold label).",
    apply=apply,
    judged_by="expected",
    paper_reference="InfoTabS paper Table 3",
    family="premise_control",
    invariants=(HYPOTHESIS_KEPT, PREMISE_REPLACED),
)
