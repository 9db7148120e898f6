"""Premise control (Gupta et al., 2020, Table 4): every premise replaced by one constant,
uninformative infobox ("to be or not to be"). A model that uses its premise should lose the
accuracy that the evidence gave it."""

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.base import WRONG_TABLE, Example, Probe, ProbeContext, ProbeExample, Role, SharedProbe
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, PREMISE_REPLACED

DUMMY_TITLE = "Hamlet"
DUMMY_ROWS = (Row("quote", ("to be or not to be",)),)


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    dummy = Table(table.table_id, DUMMY_TITLE, DUMMY_ROWS, table.category)
    return [ProbeExample(example.hypothesis, dummy, example.label, {"premise": "dummy"})]


def make(dataset, name: str) -> Probe:
    return Probe(
        name=name,
        verdict_role=Role(WRONG_TABLE, "dummy table", scorecard="drop with a dummy table"),
        description="A constant 'to be or not to be' table instead of the real one (scored against the gold label).",
        apply=apply,
        judged_by="expected",
        paper_reference="Gupta et al. (2020) Table 4",
        labels=frozenset(dataset.labels),
        family="premise_control",
        invariants=(HYPOTHESIS_KEPT, PREMISE_REPLACED),
        datasets=(dataset.name,),
    )


SHARED = SharedProbe(name="dummy_premise", table_types=("infobox",), make=make)
