"""Named entities in a table's rows, for entity substitution (entity_flip, entity_preserve): which
names stand where in a table, and which names of other tables may take their place.
"""

from __future__ import annotations

import re

from tabprobe.data.infobox.table import Table, normalised
from tabprobe.probes.infotabs.titles import name_run, names_subject
from tabprobe.wordlists import word_groups

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
ALIASES = word_groups("probes/words/country_aliases.txt")


def takes_article(entity) -> bool:
    """Whether the sentence writes the name with "the" ("the United States"): a substitute must
    be a name written the same way ("the Helen" is not English)."""
    doc = entity.doc
    i = entity.start - 1
    while i >= 0 and doc[i].pos_ == "ADJ":  # "the western U.S."
        i -= 1
    return entity.text.lower().startswith("the ") or (i >= 0 and doc[i].lower_ == "the")


def replaceable(entity, table: Table) -> bool:
    """A person, place or organisation that is not the table's subject, is a whole name in the
    sentence (not the "Manila" of "Treaty of Manila", not part of "Harland and Wolff" or of an
    address written in the sentence) and is capitalised."""
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
    return True


def usable(entity, table: Table) -> bool:
    """An entity the probe may replace (replaceable) that stands as a value of the table (slots)."""
    return replaceable(entity, table) and bool(slots(table, strip_article(entity.text)))


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


def filled_slots(table: Table) -> dict[tuple[str, str], str]:
    """(key, place) -> what the table holds there, for the places `slots` reads: the whole value
    of a row with one value, and each part of a comma-separated address without a date in it."""
    found = {}
    for row in table.rows:
        if len(row.values) != 1:
            continue
        key, value = normalised(row.key), row.values[0].strip()
        found[(key, "whole")] = value
        if re.search(r"\d", value):
            continue
        parts = [p.strip() for p in value.split(",") if p.strip()]
        for i, part in enumerate(parts if len(parts) > 1 else []):
            found[(key, f"{i}/{len(parts)}")] = part
    return found


# A table value that is a plain name: one to five capitalised words (inner "of", "de", "and"
# allowed), no digit, bracket, footnote or abbreviation with dots.
_NAME_VALUE = re.compile(r"^[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|del|da|di|du|van|von|der|la|le|and|&)){0,4}$")
# Names written with "the" ("the United States", "the Beatles", "the Netherlands"): a value of
# a cell says nothing about how a sentence writes it, so such a name never replaces one written
# without "the".
_NAME_WITH_ARTICLE = re.compile(
    r"^The\b|\b(?:United|States|Kingdom|Republic|Islands|Emirates|Union|Federation|Netherlands|"
    r"Philippines|Bahamas|Gambia|Maldives|Isles)\b"
)


# Capitalised values that name nothing: "Worldwide", "Various", "Independent".
_NOT_A_NAME = re.compile(
    r"^(?:worldwide|international|global|various|unknown|none|independent|self|n/?a|multiple|other|"
    r"unreleased|private|public|online|nationwide|europe-wide)\b",
    re.IGNORECASE,
)


def name_value(value: str) -> bool:
    """A table value that is a plain name written without "the" (_NAME_VALUE)."""
    return bool(_NAME_VALUE.match(value)) and not _NAME_WITH_ARTICLE.search(value) and not _NOT_A_NAME.match(value)


# Rows of demonyms ("German", "Spanish"), which the parser may tag as places.
_DEMONYM_KEYS = re.compile(r"\b(?:nationality|citizenship|demonyms?|ethnicity|ethnic)\b", re.IGNORECASE)


def name_cells(tables) -> dict[tuple[str | None, str, str], list[str]]:
    """(table category, key, place) -> the sorted plain names (_NAME_VALUE, never written with
    "the") that the split's tables hold there (filled_slots): the names a slot takes, beyond the
    few that hypotheses happen to mention."""
    pool: dict[tuple, set[str]] = {}
    for table_id in sorted(tables):
        table = tables[table_id]
        for (key, place), value in filled_slots(table).items():
            if name_value(value) and not _DEMONYM_KEYS.search(key):
                pool.setdefault((table.category, key, place), set()).add(value)
    return {slot: sorted(names) for slot, names in sorted(pool.items(), key=repr)}


def entity_name_span(entity) -> tuple[int, int]:
    """Character span of the entity without a leading article (which stays in the sentence)."""
    name = strip_article(entity.text)
    return entity.end_char - len(name), entity.end_char
