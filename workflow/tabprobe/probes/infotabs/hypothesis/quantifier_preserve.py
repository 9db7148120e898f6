"""Replace a quantifying determiner by one that keeps the label (paper section 4: "Quantifiers:
like most, many, every"): a weaker one in an ENTAIL hypothesis ("Most people in Burkina Faso
speak French" -> "Some people ..."; all > most > some, many > several > multiple), a stronger one
in a CONTRADICT hypothesis ("married to him for most of her life" -> "for all of her life"), or
one that says the same ("every issue" <-> "each issue").

Sound for a quantifier in an upward context over a non-empty set, so only the one quantifier of
a sentence with no negation, comparison, condition, exception or focus word, never a
superlative ("the most popular"), a comparison ("as many") or a bound ("at most")
(hypothesis_edits.quantifiers)."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.quantifiers import quantifier_preserving_edits
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    edits = quantifier_preserving_edits(doc, example.label)
    if not edits:
        raise NotApplicable("no quantifier (most, many, every, all, some, several) to weaken or strengthen")
    return [ProbeExample(hypothesis, table, example.label, provenance) for hypothesis, provenance in edits]


PROBE = Probe(
    name="quantifier_preserve",
    description="Weaken a quantifier of a true hypothesis, strengthen one of a false one: 'most' -> 'some' / 'all'.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
