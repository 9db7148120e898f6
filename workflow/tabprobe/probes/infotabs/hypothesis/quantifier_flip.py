"""Replace a quantifier by its logical complement, so ENTAIL and CONTRADICT swap (paper section 4:
quantifiers, where the rule is clear):
- a comparative quantifier before a number ("more than 3 languages" -> "no more than 3
  languages", "at least 2" -> "less than 2"): whatever the table says, exactly one of the two is
  true;
- a quantified subject ("All Burn Energy drinks are sugar free" -> "Not all ...", "Some nations
  send ..." -> "No nations send ...", "Every issue" -> "Not every issue"): the contradictory;
- and, for ENTAIL only, "most"/"many" -> "few" ("has won many awards" -> "has won few awards"):
  a contrary on a vague scale, not certain, so marked `heuristic` for a person to check (docs/curation.md), as every CONTRADICT -> ENTAIL flip is."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.quantifiers import quantifier_edits, quantifier_flipping_edits
from tabprobe.probes.infotabs.hypothesis.edits.reading import FLIPPED, is_negated, quantified_subject
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if is_negated(doc):
        # "does not have more than 3" -> "does not have no more than 3": a double negation
        raise NotApplicable("negated sentence")
    edits = quantifier_flipping_edits(doc, example.label)
    if quantified_subject(doc) and not edits:
        # "Anyone with over 12,000 yards is ...": the complement of a restrictor is no negation
        raise NotApplicable("a quantified or counted subject")
    if not quantified_subject(doc):
        edits += quantifier_edits(doc)
    if not edits:
        raise NotApplicable("no comparative quantifier before a number, and no quantified subject to negate")
    return [ProbeExample(hypothesis, table, FLIPPED[example.label], provenance) for hypothesis, provenance in edits]


PROBE = Probe(
    name="quantifier_flip",
    description="Swap a quantifier for its complement: 'more than 3' <-> 'no more than 3', 'all' -> 'not all' (E <-> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
