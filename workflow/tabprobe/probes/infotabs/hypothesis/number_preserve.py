"""Move a number governed by a monotone function word (paper Table 2: over, under, more than,
less than, before, after) in the direction that keeps the label: "a running time of over 3 hrs"
(CONTRADICT for 125 minutes) stays CONTRADICT at "over 4 hrs". Years under before/after belong to
the temporal probes."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.numbers import monotone_number_probe
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return monotone_number_probe(example, table, doc, ctx, temporal=False, flip=False)


PROBE = Probe(
    name="number_preserve",
    description="Move a number under a monotone word (over, under, more/less than) the label-keeping way.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 2 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
