"""Replace a comparative quantifier before a number by its logical complement ("more than 3
languages" -> "no more than 3 languages", "at least 2" -> "less than 2"): whatever the table
says, exactly one of the two is true, so ENTAIL and CONTRADICT swap with no heuristic (paper
section 4: quantifiers, where the rule is clear)."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .hypothesis_edits import FLIPPED, is_negated, quantified_subject, quantifier_edits
from .invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if is_negated(doc):
        # "does not have more than 3" -> "does not have no more than 3": a double negation
        raise NotApplicable("negated sentence")
    if quantified_subject(doc):
        # "Anyone with over 12,000 yards is ...": the complement of a restrictor is no negation
        raise NotApplicable("a quantified or counted subject")
    edits = quantifier_edits(doc)
    if not edits:
        raise NotApplicable("no comparative quantifier before a number")
    return [ProbeExample(hypothesis, table, FLIPPED[example.label], provenance) for hypothesis, provenance in edits]


PROBE = Probe(
    name="quantifier_flip",
    description="Swap a quantifier before a number for its complement: 'more than 3' <-> 'no more than 3' (E <-> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs_parse=True,
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
