"""Replace a person, place or organisation in a CONTRADICT hypothesis by another of the same kind
that the table does not support either: the hypothesis stays false, CONTRADICT -> CONTRADICT
(paper section 4: named entities substituted "with entities of the same type"; the label-keeping
direction of entity_flip).

Sound only where the sentence says of the name what a row of the table says with one name (a
row with one value, or one part of an address), so any other name is false there too:
- the name stands in that slot of the table itself (as entity_flip requires): the claim about it
  may be true, and the sentence false elsewhere; with another name it is false in that slot
  as well;
- or the table holds another name in a slot where the name stands in other tables of the
  category ("from the United States" on a horse whose Country is Great Britain): the name is
  what the table contradicts, and so is its substitute.
And the sentence must name that row's relation (its key's words, or a cue: "born", "signed",
"recorded in" for Born, Labels, Studio) or the relation of another such row: a false sentence
may put a name of the table into a relation the table does not have ("Godolphin Racing has been
the owner" on a table whose Trainer is Godolphin Racing and that has no Owner row), where
another name is not false but unknown (NEUTRAL).
The substitute comes from that slot of other tables of the same category (a name the split's
hypotheses give an entity of the same parser type standing there, as for entity_flip; or, for a
name written without "the", a plain name a table holds there, where hypotheses show the slot
holds entities of that type), and the table must not support it: not in the table, no value of
the table inside it ("New York City" where the table says "New York"), no other name of one of its
values ("UK" for "United Kingdom"). Sentences whose truth may turn on the name otherwise are left
alone: negated, disjunctive, comparative or exceptive ones ("or", "than", "unlike", "except"),
quantified subjects, and claims about someone other than the table's subject."""

from __future__ import annotations

import re

from tabprobe.data.infobox.table import Table, normalised
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.reading import is_negated, quantified_subject
from tabprobe.probes.infotabs.hypothesis.edits.relations import names_relation, relation_words
from tabprobe.probes.infotabs.hypothesis.entity_slots import (
    aliases,
    entity_name_span,
    entity_pool,
    filled_slots,
    name_cells,
    name_value,
    replaceable,
    slots,
    strip_article,
    table_text,
    takes_article,
)
from tabprobe.probes.infotabs.titles import mentions as subject_mentions
from tabprobe.probes.infotabs.titles import names_subject
from tabprobe.probes.invariants import HYPOTHESIS_EDIT, Invariant
from tabprobe.probes.shared.text_edits import apply_changes, change

# Words under which another name may make the sentence true: a disjunction, a comparison, an
# exception, a question, a condition ("born in Paris or Lyon", "older than Bo Lind", "every
# country except France").
OPEN_WORDS = frozenset(
    {
        "or",
        "either",
        "neither",
        "nor",
        "than",
        "unlike",
        "like",
        "instead",
        "rather",
        "except",
        "besides",
        "other",
        "if",
        "whether",
        "same",
        "different",
        "both",
        "between",
        "?",
    }
)


def said_of_the_subject(word, table: Table) -> bool:
    """Whether a relation word is said of the table's subject: the subject named within the four
    words after it ("Trainer of Brigadier Gerard", "directed Boyhood") or just before it, as a
    possessive ("Carbine's trainer"); not "the owner of the Spencer Public Library", said of a
    cat whose Owner is Vicki Myron."""
    doc = word.doc
    after = doc[word.i + 1 : word.i + 5]
    for mention in subject_mentions(doc.text, table):
        if after and after.start_char <= mention.start < after.end_char:
            return True
        if re.fullmatch(r"(?:'s|’s|')?\s*", doc.text[mention.end : word.idx]) and mention.end <= word.idx:
            return True
    return False


def named_places(entity, table: Table, places: set[tuple[str, str]], pool) -> set[tuple[str, str]]:
    """The places of `places` whose relation the sentence names; or all of them where it names,
    of the table's subject, the relation of another row that holds one plain name of the
    entity's type and is not said of that name (the sentence then says that relation of the
    entity: "Trainer of Brigadier Gerard is John L. Hislop", his Breeder, on a table whose
    Trainer is Dick Hern); else none."""
    doc = entity.doc
    named = {p for p in places if names_relation(doc, p[0])}
    if named:
        return named
    sentence = normalised(doc.text)
    for (key, place), value in filled_slots(table).items():
        typed = any(slot[:4] == (entity.label_, table.category, key, place) for slot in pool)
        if (
            place == "whole"
            and (key, place) not in places
            and typed
            and name_value(value)
            and normalised(value) not in sentence
            and any(said_of_the_subject(word, table) for word in relation_words(doc, key))
        ):
            return places
    return set()


def _table_parts(table: Table) -> list[str]:
    """The table's title and values, and their comma, slash and bracket parts, normalised."""
    parts = set()
    for value in [table.title, *(v for row in table.rows for v in row.values)]:
        for part in re.split(r"[,/;()\[\]]|\s+[-–]\s+", value):
            if len(normalised(part)) >= 3:
                parts.add(normalised(part))
    return sorted(parts)


def unsupported(name: str, table: Table) -> str | None:
    """Why the table may support `name` (None when it does not): the table holds it, holds a
    value inside it, holds another name of it, or the name is the table's subject."""
    wanted = normalised(name)
    if wanted in table_text(table):
        return f"{name!r} is in the table"
    for part in _table_parts(table):
        if re.search(r"(?<!\w)" + re.escape(part) + r"(?!\w)", wanted):
            return f"{name!r} holds {part!r}, which the table holds"
        if aliases(part, wanted):
            return f"{name!r} is another name of {part!r}"
    if names_subject(name, table):
        return f"{name!r} names the table's subject"
    return None


def contradicted_slots(name: str, label: str, table: Table, article: bool, pools) -> set[tuple[str, str]]:
    """The slots (key, place) where the table holds one name and `name`, absent from the table,
    stands in other tables of its category: the name the table contradicts."""
    pool, cells = pools
    filled = filled_slots(table)
    wanted = normalised(name)
    found = set()
    for (key, place), value in filled.items():
        if normalised(value) == wanted:
            continue
        attested = name in pool.get((label, table.category, key, place, article), ())
        typed = any(slot[:4] == (label, table.category, key, place) for slot in pool)
        if attested or (typed and not article and name in cells.get((table.category, key, place), ())):
            found.add((key, place))
    return found


def substitutes(entity, table: Table, places: set[tuple[str, str]], pools) -> list[str]:
    """Names of the entity's kind from these slots of other tables, written alike (with or
    without "the"), that the table does not support and that are neither the entity's own name,
    another name of it, nor a name the sentence already holds."""
    pool, cells = pools
    own = " ".join(strip_article(entity.text).split())
    article = takes_article(entity)
    options = set()
    for key, place in places:
        slot = (entity.label_, table.category, key, place)
        options.update(pool.get((*slot, article), ()))
        if not article and any(s[:4] == slot for s in pool):
            options.update(cells.get((table.category, key, place), ()))
    sentence = normalised(entity.doc.text)
    return sorted(
        c
        for c in options
        if unsupported(c, table) is None
        and normalised(own) not in normalised(c)
        and normalised(c) not in normalised(own)
        and normalised(c) not in sentence
        and not aliases(c, own)
    )


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if "entity_pools" not in ctx.shared:
        ctx.shared["entity_pools"] = (entity_pool(ctx.need("parse"), ctx.tables), name_cells(ctx.tables))
    pools = ctx.shared["entity_pools"]
    if is_negated(doc):
        raise NotApplicable("negated sentence (a substituted entity may make it true)")
    if not subject_mentions(example.hypothesis, table) or any(t.dep_ == "expl" for t in doc) or quantified_subject(doc):
        raise NotApplicable("the hypothesis is not a claim about the table's subject")
    if any(t.lower_ in OPEN_WORDS for t in doc):
        raise NotApplicable("a disjunction, comparison or exception (another name may make it true)")
    out = []
    for entity in doc.ents:
        if not replaceable(entity, table):
            continue
        name = " ".join(strip_article(entity.text).split())
        places = slots(table, name)
        in_table = bool(places)
        if not in_table:
            if unsupported(name, table) is not None:
                continue  # another form of a value of the table ("USA"): the claim may be true
            places = contradicted_slots(name, entity.label_, table, takes_article(entity), pools)
        places = named_places(entity, table, places, pools[0])
        options = substitutes(entity, table, places, pools) if places else []
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
        filled = filled_slots(table)
        provenance = {
            "rule": "entity_substitution_kept_false",
            "entity_type": entity.label_,
            "changes": [edit],
            "slots": [{"key": key, "place": place} for key, place in sorted(places)],
            # the name the table holds there: the old one, or the one that contradicts it
            "table_holds": sorted({filled[p] for p in places}),
            "old_in_table": in_table,
        }
        out.append(ProbeExample(apply_changes(example.hypothesis, [edit]), table, "C", provenance))
    if not out:
        raise NotApplicable("no entity in a slot the table fills, with a substitute it does not support")
    return out


def _substitute_unsupported(example, table, out):
    """The new name is not supported by the table, and stands where the table holds one name."""
    filled = filled_slots(table)
    for edit in out.provenance.get("changes", []):
        reason = unsupported(edit["new"].rstrip("."), table)
        if reason:
            return reason
    for slot in out.provenance.get("slots", []):
        if (slot["key"], slot["place"]) not in filled:
            return f"the table holds no one value at {slot['key']!r} ({slot['place']})"
    return None


PROBE = Probe(
    name="entity_preserve",
    description="Swap a person/place/organisation of a false hypothesis for one the table does not support (C -> C).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=(
        *HYPOTHESIS_EDIT,
        Invariant("replaces a name by one the table does not support", _substitute_unsupported),
    ),
)
