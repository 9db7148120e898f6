"""Negate the main clause of the hypothesis, or remove its negation (paper section 4, Table 3:
"Breakfast in America was not released towards the end of 1979"): ENTAIL and CONTRADICT swap."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.negation import negation_edit
from tabprobe.probes.infotabs.hypothesis.edits.reading import FLIPPED
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    edited = negation_edit(doc)
    if edited is None:
        raise NotApplicable("no main clause to negate (or another negation word already there)")
    return [ProbeExample(edited[0], table, FLIPPED[example.label], edited[1])]


PROBE = Probe(
    name="negation_flip",
    description="Insert or remove 'not' in the main clause (E <-> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
