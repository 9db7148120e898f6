"""Replace a person, place or organisation that the hypothesis shares with its table by another
of the same kind (paper section 4: "replacing a named entity in the hypothesis with a random
entity of the same type"): the table now contradicts the hypothesis, ENTAIL -> CONTRADICT.

"The same kind" is read off the tables, not only the parser: the entity must stand in its table
as the one value of a row, or as a part of a comma-separated address in it ("Vienna, Austria"),
under some key; its substitute is a name the split's hypotheses use for an entity of the same
parser type standing in the same place (the same part of an address of as many parts) under the
same key of another table of the same category. So a country is replaced by a country
("Country", or the last part of "Born"), a city by a city, and never by a company or a product
that the parser mistyped; a name written as part of an address in the sentence is left alone. The table's own subject (its
title, the names it lists, a name in brackets) is never replaced: a hypothesis about another
subject would be NEUTRAL, not CONTRADICT."""

from __future__ import annotations

from tabprobe.data.infobox.table import normalised
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.reading import is_negated, quantified_subject
from tabprobe.probes.infotabs.hypothesis.entity_slots import (
    entity_name_span,
    entity_pool,
    slots,
    substitutes,
    table_text,
    usable,
)
from tabprobe.probes.infotabs.titles import mentions as subject_mentions
from tabprobe.probes.infotabs.titles import names_subject
from tabprobe.probes.invariants import HYPOTHESIS_EDIT, Invariant
from tabprobe.probes.shared.text_edits import apply_changes, change


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if "entity_pool" not in ctx.shared:
        ctx.shared["entity_pool"] = entity_pool(ctx.need("parse"), ctx.tables)
    pool = ctx.shared["entity_pool"]
    if is_negated(doc):
        raise NotApplicable("negated sentence (a substituted entity may make it true)")
    if not subject_mentions(example.hypothesis, table) or any(t.dep_ == "expl" for t in doc) or quantified_subject(doc):
        # A claim about someone else ("Michael Jackson owned an ape"), an existential ("There is
        # a cemetery near Notre Dame") or a quantified one: another name need not make it false.
        raise NotApplicable("the hypothesis is not a claim about the table's subject")
    entities = [e for e in doc.ents if usable(e, table)]
    if not entities:
        raise NotApplicable("no person, place or organisation that stands as the one value of a row")
    out = []
    for entity in entities:
        options = substitutes(entity, table, pool)
        if not options:
            continue
        new = options[int(ctx.rng.integers(len(options)))]
        start, end = entity_name_span(entity)
        if (
            example.hypothesis[start:end].endswith(".")
            and not new.endswith(".")
            and not example.hypothesis[end:].strip()
        ):
            new += "."  # "lives in the U.S." ended the sentence with the name's own full stop
        edit = change(example.hypothesis, start, end, new)
        provenance = {
            "rule": "entity_substitution",
            "entity_type": entity.label_,
            "changes": [edit],
            "slots": sorted(f"{key}/{place}" for key, place in slots(table, edit["old"])),
        }
        out.append(ProbeExample(apply_changes(example.hypothesis, [edit]), table, "C", provenance))
    if not out:
        raise NotApplicable("no entity of the same type in the same place of another table")
    return out


def _substitute_new_to_table(example, table, out):
    """The new name is not in the table (or the table would still support the hypothesis) and
    is not the table's subject."""
    for edit in out.provenance.get("changes", []):
        if normalised(edit["new"]) in table_text(table):
            return f"{edit['new']!r} is in the table"
        if names_subject(edit["old"], table) or names_subject(edit["new"], table):
            return f"{edit['old']!r} -> {edit['new']!r} touches the table's subject"
        if not slots(table, edit["old"]):
            return f"{edit['old']!r} does not stand as a value of the table"
    return None


PROBE = Probe(
    name="entity_flip",
    description="Swap a person/place/organisation shared with the table for one from another table (E -> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Table 4",
    labels=frozenset({"E"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=(
        *HYPOTHESIS_EDIT,
        Invariant("replaces a value of the table by a name it lacks", _substitute_new_to_table),
    ),
)
