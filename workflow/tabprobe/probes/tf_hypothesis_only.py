"""TabFact premise control (as InfoTabS paper Table 3): the model sees the statement alone — an
empty table, with no caption, no header and no records. Accuracy against the gold label measures
what the statement by itself lets a model guess; a model that reads its table should do worse
here than on the real tables."""

from dataclasses import replace

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, PREMISE_EMPTY, RELATIONAL_PREMISE_REPLACED
from tabprobe.probes.statement_edits import relational


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    empty = replace(table, title="", header=(), records=(), source_records=())
    return [ProbeExample(example.hypothesis, empty, example.label, {"premise": "none"})]


PROBE = Probe(
    name="tf_hypothesis_only",
    description="TabFact: no premise, the statement alone (scored against the gold label).",
    apply=apply,
    judged_by="expected",
    paper_reference="InfoTabS paper Table 3, on TabFact",
    labels=frozenset({"E", "C"}),
    family="premise_control",
    invariants=(HYPOTHESIS_KEPT, RELATIONAL_PREMISE_REPLACED, PREMISE_EMPTY),
    datasets=("tabfact",),
)
