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

import re

from ..table import Table, normalised
from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .hypothesis_edits import is_negated, quantified_subject
from .invariants import HYPOTHESIS_EDIT, Invariant
from .text_edits import apply_changes, change
from .titles import mentions as subject_mentions
from .titles import name_run, names_subject

# Person, place and organisation entities (paper section 4: "Named Entities").
ENTITY_TYPES = frozenset({"PERSON", "GPE", "LOC", "FAC", "ORG"})


def strip_article(text: str) -> str:
    """ "the Faroe Islands" -> "Faroe Islands": the parser often takes the article into a name."""
    return re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.IGNORECASE)


def slots(table: Table, name: str) -> set[tuple[str, str]]:
    """Where `name` stands in the table, in a row with one value (a row listing several may
    list only some, so another name would not contradict it): (key, "whole") for the whole value,
    (key, "i/n") for the i-th of the n parts of a comma-separated address ("Nashville, Tennessee,
    U.S.": Tennessee is 1/3), so a city stands where a city stands and a state where a state does;
    an address holding a date ("May 15, 2003 Nashville, ...") gives none, its parts being shifted. Keys and names compared
    without case and spacing."""
    wanted = normalised(name)
    found = set()
    for row in table.rows:
        if len(row.values) != 1:
            continue
        key = normalised(row.key)
        value = row.values[0]
        if normalised(value) == wanted:
            found.add((key, "whole"))
            continue
        if re.search(r"\d", value):
            continue  # a date mixed into the address shifts its parts: which level is which is lost
        parts = [normalised(p) for p in value.split(",") if p.strip()]
        for i, part in enumerate(parts if len(parts) > 1 else []):
            if part == wanted:
                found.add((key, f"{i}/{len(parts)}"))
    return found


# Names of one country: replacing one by another changes nothing.
ALIASES = (
    frozenset({"united states", "united states of america", "usa", "u.s.", "u.s.a.", "us", "america", "the us"}),
    frozenset({"united kingdom", "uk", "u.k.", "britain", "great britain"}),
    frozenset({"soviet union", "ussr", "u.s.s.r."}),
)


def takes_article(entity) -> bool:
    """Whether the sentence writes the name with "the" ("the United States"): a substitute must
    be a name written the same way ("the Helen" is not English)."""
    doc = entity.doc
    i = entity.start - 1
    while i >= 0 and doc[i].pos_ == "ADJ":  # "the western U.S."
        i -= 1
    return entity.text.lower().startswith("the ") or (i >= 0 and doc[i].lower_ == "the")


def usable(entity, table: Table) -> bool:
    """An entity the probe may replace: a person, place or organisation that is not the table's
    subject, stands as a value of the table (slots), is a whole name in the sentence (not the
    "Manila" of "Treaty of Manila", not part of "Harland and Wolff") and is capitalised."""
    name = strip_article(entity.text)
    if entity.label_ not in ENTITY_TYPES or names_subject(name, table) or not name[:1].isupper():
        return False
    text = entity.doc.text
    start, end = entity.end_char - len(name), entity.end_char
    if name_run(text, start, end) != (start, end) or re.search(
        r"[A-Z][\w.'’-]*\s+(?:of|de|and|&)\s+(?:the\s+)?$", text[:start]
    ):
        return False
    if re.search(r"[A-Z][\w.'’-]*,\s*$", text[:start]) or re.match(r",\s*[A-Z]", text[end:]):
        return False  # part of an address in the sentence ("Paris, France"): another city makes it "Seattle, France"
    return bool(slots(table, name))


def entity_pool(docs, tables) -> dict[tuple, list[str]]:
    """(parser type, table category, key, place in the value, written with "the") -> the sorted
    names that the split's hypotheses give entities of that type standing there in their own
    table (the category too: an album's Artist is a band, a painting's a painter)."""
    pool: dict[tuple, set[str]] = {}
    for uid in sorted(docs):
        doc = docs[uid]
        table = tables.get(doc.user_data.get("table_id"))
        if table is None:
            continue
        for entity in doc.ents:
            if not usable(entity, table):
                continue
            name = " ".join(strip_article(entity.text).split())
            for key, place in slots(table, name):
                pool.setdefault((entity.label_, table.category, key, place, takes_article(entity)), set()).add(name)
    return {slot: sorted(names) for slot, names in sorted(pool.items())}


def aliases(a: str, b: str) -> bool:
    return any(normalised(a) in group and normalised(b) in group for group in ALIASES)


def table_text(table: Table) -> str:
    return normalised(" \n ".join([table.title, *(v for row in table.rows for v in row.values)]))


def substitutes(entity, table: Table, pool) -> list[str]:
    """Names of the entity's type from the same slots of other tables, written alike (with or
    without "the"), that this table never mentions, that are not another name of the same
    thing, and that do not contain or sit inside the entity's own name."""
    own = normalised(strip_article(entity.text))
    text = table_text(table)
    options = set()
    for key, place in slots(table, strip_article(entity.text)):
        options.update(pool.get((entity.label_, table.category, key, place, takes_article(entity)), ()))
    return sorted(
        c
        for c in options
        if normalised(c) not in text
        and own not in normalised(c)
        and normalised(c) not in own
        and not names_subject(c, table)
        and not aliases(c, own)
    )


def entity_name_span(entity) -> tuple[int, int]:
    """Character span of the entity without a leading article (which stays in the sentence)."""
    name = strip_article(entity.text)
    return entity.end_char - len(name), entity.end_char


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if "entity_pool" not in ctx.shared:
        ctx.shared["entity_pool"] = entity_pool(ctx.docs, ctx.tables)
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
    needs_parse=True,
    label_change="flipped",
    family="hypothesis",
    invariants=(
        *HYPOTHESIS_EDIT,
        Invariant("replaces a value of the table by a name it lacks", _substitute_new_to_table),
    ),
)
