"""Replace a person, place or organisation that the hypothesis shares with its table by another
entity of the same type drawn from other tables (paper section 4): the table now contradicts
the hypothesis, ENTAIL -> CONTRADICT. The table's own subject (its title) is never replaced:
a hypothesis about another subject would be NEUTRAL, not CONTRADICT."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .hypothesis_edits import apply_changes, change, entity_name_span, entity_pool, is_negated, shared_entities, substitutes


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if "entity_pool" not in ctx.shared:
        ctx.shared["entity_pool"] = entity_pool(ctx.docs, ctx.tables)
    pool = ctx.shared["entity_pool"]
    if is_negated(doc):
        raise NotApplicable("negated sentence (a substituted entity may make it true)")
    entities = shared_entities(doc, table)
    if not entities:
        raise NotApplicable("no person, place or organisation shared with the table")
    out = []
    for entity in entities:
        options = substitutes(entity, table, pool)
        if not options:
            continue
        new = options[int(ctx.rng.integers(len(options)))]
        edit = change(example.hypothesis, *entity_name_span(entity), new)
        provenance = {"rule": "entity_substitution", "entity_type": entity.label_, "changes": [edit]}
        out.append(ProbeExample(apply_changes(example.hypothesis, [edit]), table, "C", provenance))
    if not out:
        raise NotApplicable("no same-type entity from another table")
    return out


PROBE = Probe(
    name="entity_flip",
    description="Swap a person/place/organisation shared with the table for one from another table (E -> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Table 4",
    labels=frozenset({"E"}),
    needs_parse=True,
    label_change="flipped",
    family="hypothesis",
)
