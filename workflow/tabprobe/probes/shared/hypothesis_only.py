"""Premise control (Gupta et al., 2020, Table 3): the model sees the hypothesis alone, an empty
table of the dataset's type. Accuracy against the gold label measures what the hypothesis by itself
lets the model guess; a model that reads its table should do worse here than on the real tables."""

from dataclasses import replace

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import TABLE_REMOVED, Example, Probe, ProbeContext, ProbeExample, Role, SharedProbe
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, PREMISE_EMPTY, PREMISE_REPLACED, RELATIONAL_PREMISE_REPLACED


def _empty_infobox(table):
    return Table(table.table_id, "", (), table.category)  # renders as no premise at all


def _empty_relational(table):
    return replace(table, title="", header=(), records=(), source_records=())  # no caption, header or records


# The empty table of each table type, and what its probe promises of it.
EMPTY = {"infobox": _empty_infobox, "relational": _empty_relational}
INVARIANTS = {
    "infobox": (HYPOTHESIS_KEPT, PREMISE_REPLACED),
    "relational": (HYPOTHESIS_KEPT, RELATIONAL_PREMISE_REPLACED, PREMISE_EMPTY),
}


def make(dataset, name: str) -> Probe:
    empty = EMPTY[dataset.table_type.name]

    def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
        return [ProbeExample(example.hypothesis, empty(table), example.label, {"premise": "none"})]

    return Probe(
        name=name,
        verdict_role=Role(TABLE_REMOVED, "table removed", scorecard="drop with the table removed"),
        description="No premise: the hypothesis alone (scored against the gold label).",
        apply=apply,
        judged_by="expected",
        paper_reference="Gupta et al. (2020) Table 3",
        labels=frozenset(dataset.labels),
        family="premise_control",
        invariants=INVARIANTS[dataset.table_type.name],
        datasets=(dataset.name,),
    )


SHARED = SharedProbe(name="hypothesis_only", table_types=tuple(EMPTY), make=make)
