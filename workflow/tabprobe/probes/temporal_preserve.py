"""Temporal edits that keep the label (paper section 4, Table 3): a year under before/after moved
the monotone way (ENTAIL and CONTRADICT), and, for ENTAIL, a date made less precise: a full
date or a season to its year ("on March 21, 1979" -> "in 1979"), a year to its decade ("in 1969"
-> "in the 1960s")."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .hypothesis_edits import free_dates, generalise_date, monotone_number_probe
from .invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    out = []
    try:
        out += monotone_number_probe(example, table, doc, ctx, temporal=True, flip=False)
    except NotApplicable:
        pass
    if example.label == "E":
        for entity in free_dates(doc, table.title):
            edited = generalise_date(example.hypothesis, entity)
            if edited:
                out.append(ProbeExample(edited[0], table, "E", edited[1]))
    if not out:
        raise NotApplicable("no year under before/after, and no date to generalise")
    return out


PROBE = Probe(
    name="temporal_preserve",
    description="Move a year under before/after the label-keeping way, or make a date less precise (year, decade).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs_parse=True,
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
