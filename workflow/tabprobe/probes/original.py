"""The identity probe: the unperturbed split, which every other probe is compared with."""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, TABLE_KEPT


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return [ProbeExample(example.hypothesis, table, expected=example.label, provenance={})]


PROBE = Probe(
    name="original",
    description="The gold examples, unchanged.",
    apply=apply,
    judged_by="expected",
    invariants=(HYPOTHESIS_KEPT, TABLE_KEPT),
)
