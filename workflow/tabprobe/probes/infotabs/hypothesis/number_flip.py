"""Move a number governed by a monotone function word against its monotone direction by a large
step (half or twice: the paper's heuristic, section 4), which flips ENTAIL and CONTRADICT.
Not guaranteed (the paper curated such cases by hand), so provenance marks it `heuristic`."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.numbers import monotone_number_probe
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return monotone_number_probe(example, table, doc, ctx, temporal=False, flip=True)


PROBE = Probe(
    name="number_flip",
    description="Halve or double a number under a monotone word against its direction (heuristic E <-> C flip).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 2 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
