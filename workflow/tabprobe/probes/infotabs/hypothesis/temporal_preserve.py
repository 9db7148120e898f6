"""Temporal edits that keep the label (paper section 4, Table 3): a year under before/after moved
the monotone way (ENTAIL and CONTRADICT); for ENTAIL, a date made less precise: a full date or a
season to its year ("on March 21, 1979" -> "in 1979"), a year to its decade ("in 1969" -> "in
the 1960s"); for CONTRADICT, another year that the table does not support either ("released
towards the end of 1979" -> "of 1989", Table 3's H2), see year_kept_false.

The year of a CONTRADICT hypothesis changes only in a plain claim about one date of the table's
subject: not negated, no quantifier, focus word or modal verb, no other number (an age, a count),
nothing that ties the date to another time, an age or a lasting state (RELATIVE_TIME: "still",
"after", "teenager", "married")."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.dates import RELATIVE_TIME, free_dates, generalise_date, year_kept_false
from tabprobe.probes.infotabs.hypothesis.edits.numbers import monotone_number_probe
from tabprobe.probes.infotabs.hypothesis.edits.reading import FOCUS_WORDS, is_negated, quantified_subject
from tabprobe.probes.infotabs.titles import mentions
from tabprobe.probes.invariants import HYPOTHESIS_EDIT

# Quantifiers anywhere in the sentence: "longer than any album released in January 2017" is
# false of 2017's albums, and unknown of another year's.
QUANTIFIERS = frozenset({"any", "every", "all", "each", "some", "most", "many", "few", "several", "none", "both"})


def plain_dated_claim(doc, entity, table) -> bool:
    """A sentence about the table's subject whose only number is the date's own, with no
    negation, quantifier, focus word ("only introduced ... in 1983"), modal verb ("will be
    released in June 2019": false of when?) or word relating the date to another time, an age or
    a state (RELATIVE_TIME). (About another subject, "General Grosvenor was born in 1808" on his
    horse's table, the table says nothing of another year.)"""
    if is_negated(doc) or quantified_subject(doc) or not mentions(doc.text, table):
        return False
    if any(t.lower_ in RELATIVE_TIME | QUANTIFIERS | FOCUS_WORDS or t.tag_ == "MD" for t in doc):
        return False
    return not any(
        t.like_num and not t.text[:1].isupper() and not entity.start <= t.i < entity.end for t in doc
    )  # a capitalised number is a name's ("Party of Five")


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    out = []
    try:
        out += monotone_number_probe(example, table, doc, ctx, temporal=True, flip=False)
    except NotApplicable:
        pass
    for entity in free_dates(doc, table.title):
        if example.label == "E":
            edited = generalise_date(example.hypothesis, entity)
        elif plain_dated_claim(doc, entity, table):
            edited = year_kept_false(example.hypothesis, entity, table, ctx.rng)
        else:
            edited = None
        if edited:
            out.append(ProbeExample(edited[0], table, example.label, edited[1]))
    if not out:
        raise NotApplicable("no year under before/after, no date to generalise or to move in a false claim")
    return out


PROBE = Probe(
    name="temporal_preserve",
    description="Move a year under before/after the label-keeping way, make a date less precise (year, decade), "
    "or give a false claim another year the table does not support.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
