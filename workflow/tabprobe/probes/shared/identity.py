"""The identity probe: the unperturbed split, which every other probe of its dataset is compared
with (each dataset's baseline: `Dataset.baseline_probe`, `original` and `tf_original`)."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample, SharedProbe
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, RELATIONAL_TABLE_KEPT, TABLE_KEPT

# What "the table is as it was" is, by table type.
KEPT = {"infobox": TABLE_KEPT, "relational": RELATIONAL_TABLE_KEPT}


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return [ProbeExample(example.hypothesis, table, expected=example.label, provenance={})]


def make(dataset, name: str) -> Probe:
    return Probe(
        name=name,
        description="The gold examples, unchanged.",
        apply=apply,
        judged_by="expected",
        labels=frozenset(dataset.labels),
        invariants=(HYPOTHESIS_KEPT, KEPT[dataset.table_type.name]),
        datasets=(dataset.name,),
    )


SHARED = SharedProbe(name="original", table_types=tuple(KEPT), make=make)
