"""Temporal edits that flip the label (paper section 4, Table 3: "released towards the end of
1979" -> "of 1989" turns ENTAIL into CONTRADICT): for ENTAIL, another year or month in a date;
for both ENTAIL and CONTRADICT, a year under before/after moved 30 years against its monotone
direction. All are heuristics (a fact may hold for several dates), marked in provenance."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.dates import change_month, free_dates, shift_year
from tabprobe.probes.infotabs.hypothesis.edits.numbers import monotone_number_probe
from tabprobe.probes.infotabs.hypothesis.edits.reading import is_negated
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    out = []
    try:
        out += monotone_number_probe(example, table, doc, ctx, temporal=True, flip=True)
    except NotApplicable:
        pass
    if example.label == "E" and not is_negated(doc):  # "not released in 1987" may well be true
        for entity in free_dates(doc, table.title):
            for edit in (shift_year, change_month):
                edited = edit(example.hypothesis, entity, ctx.rng)
                if edited:
                    out.append(ProbeExample(edited[0], table, "C", edited[1]))
    if not out:
        raise NotApplicable("no date to change")
    return out


PROBE = Probe(
    name="temporal_flip",
    description="Change the year or month of a date, or move a year under before/after against it (E <-> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
