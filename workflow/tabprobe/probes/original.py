"""The identity probe: the unperturbed split, which every other probe is compared with."""

from ..table import Table
from .base import Example, Probe, ProbeContext, ProbeExample
from .invariants import HYPOTHESIS_KEPT, TABLE_KEPT


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return [ProbeExample(example.hypothesis, table, expected=example.label, provenance={})]


PROBE = Probe(
    name="original",
    description="The gold examples, unchanged.",
    apply=apply,
    judged_by="expected",
    invariants=(HYPOTHESIS_KEPT, TABLE_KEPT),
)
