"""Add a nominal modifier to the table's subject, stating one more fact of the table (paper
section 4, Table 3: "Breakfast in America which was produced by Pete Henderson is a pop album
..."): a true addition keeps ENTAIL and CONTRADICT."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .hypothesis_edits import ends_a_noun_phrase, modifier_clause, modifier_edit, title_mentions

MAX_VALUE_CHARS = 60  # long values make run-on hypotheses no annotator would write


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mentions = title_mentions(example.hypothesis, table.title)
    if not mentions:
        raise NotApplicable("the table's title is not mentioned in the hypothesis")
    mentions = [m for m in mentions if ends_a_noun_phrase(doc, m[1])]
    if not mentions:
        raise NotApplicable("the title is part of a longer noun phrase")
    lowered = example.hypothesis.lower()
    rows = [r for r in table.rows
            if r.key.strip() and r.values and r.values[0].strip() and len(r.values[0]) <= MAX_VALUE_CHARS
            and r.values[0].lower() not in lowered and r.key.lower() not in lowered
            and modifier_clause(r.key, r.values[0]) is not None]
    if not rows:
        raise NotApplicable("no row left to state as a modifier (already mentioned, too long, or a verb-like key)")
    out = []
    for row in rows:
        hypothesis, provenance = modifier_edit(example.hypothesis, mentions[0], row.key, row.values[0])
        out.append(ProbeExample(hypothesis, table, example.label, provenance))
    return out


PROBE = Probe(
    name="modifier_preserve",
    description="Add a relative clause with a fact of the table after the title mention (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs_parse=True,
    label_change="preserved",
    family="hypothesis",
)
