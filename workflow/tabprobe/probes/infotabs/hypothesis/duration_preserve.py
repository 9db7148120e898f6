"""Duration edits that keep the label (paper section 4: temporal expressions; Table 2's
monotonicity): a duration under a monotone word moved the label-keeping way ("over an hour"
(CONTRADICT for 46:06) -> "over two hours"), and a bare amount of a CONTRADICT hypothesis that is
not the table's length moved further from it ("a length of 56 minutes" -> "71 minutes", checked
against the table's Running time or Length).

The number probes already move numbers in digits under Table 2's words ("over 3 hours"); this
probe takes the durations they do not: amounts in words ("an hour", "two decades"), "longer than"
/ "shorter than", and bare amounts (hypothesis_edits.durations.duration_probe)."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.durations import duration_probe
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return duration_probe(example, table, doc, ctx, flip=False)


PROBE = Probe(
    name="duration_preserve",
    description="Move a duration under a monotone word the label-keeping way, or a false amount further from the table's length.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 2-4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
