"""TabFact's identity probe: the unperturbed statements with their tables, which every TabFact
probe is compared with (InfoTabS has `original`). A probe belongs to one dataset, so TabFact's
baseline is a probe of its own: its splits are TabFact's (the test set's simple and complex
halves, and `bootstrap`, the statements of the human-written programs)."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, RELATIONAL_TABLE_KEPT
from tabprobe.probes.record_edits import TABFACT_PROBE


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return [ProbeExample(example.hypothesis, table, expected=example.label, provenance={})]


PROBE = Probe(
    name="tf_original",
    description="TabFact: the gold statements and tables, unchanged.",
    apply=apply,
    judged_by="expected",
    invariants=(HYPOTHESIS_KEPT, RELATIONAL_TABLE_KEPT),
    **TABFACT_PROBE,
)
