"""How a hypothesis names its table's subject, shared by every probe that finds or replaces it
(counterfactual swaps, modifiers, entity substitution).

InfoTabS titles are messy: several names in one ("Faroe Islands , Føroyar (Faroese)"), post-
nominals ("Bryan Adams OC OBC"), a place with its state ("Columbus, Georgia"), a comma inside a
name ("I, Tonya"), a bracketed name that is the subject too ("Charles (Prince of Wales)"). And a
subject's name occurs inside other names: "named after Christopher Columbus" on the table of
Columbus, Georgia, "Beau Bridges" on Jeff Bridges' table. A mention of the subject is therefore
a form of its title that stands as a whole name in the sentence, never part of a longer one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS

from ..table import Table, normalised
from ..wordlists import word_groups, word_set
from .invariants import Invariant

# Categories of places, whose titles may add a state or country ("Columbus, Georgia"); elsewhere
# a comma is part of the name ("Crazy, Stupid, Love.").
PLACE_CATEGORIES = frozenset({"City", "Country"})
# Letters after a name that are not part of it ("Bryan Adams OC OBC", "John Macleod, FRS").
POST_NOMINALS = word_set("probes/words/post_nominals.txt")
# Last words that make a name a group's, not a person's: it has no surname.
GROUP_WORDS = word_set("probes/words/group_words.txt")
# Capitalised words before a name that do not make it another name ("President Obama").
HONORIFICS = word_set("probes/words/honorifics.txt")


def _words(text: str) -> list[str]:
    return text.split()


# Honorifics before a name in a title, often glued to it ("SirClive Sinclair", "The
# HonourableBrigitte Trogneux-Macron", "The Right Honourable Justin Trudeau PC MP").
_TITLE_PREFIX = re.compile(r"^(?:the\s*)?(?:right\s*)?honourable\s*|^(?:sir|dame|pandit)(?=\s|[A-Z])\s*", re.IGNORECASE)
# A translation or post-nominal glued to the name: a capital after three lower-case letters
# inside one word ("Republic of EstoniaEesti Vabariik", "ChennaiMadras", "David BeckhamOBE"),
# which a name such as "McCain" or "LeBron" does not have.
_GLUED = re.compile(r"(?<=[a-z]{3})(?=[A-Z])")
_GLUED_POST_NOMINAL = re.compile(r"(?<=[a-z])(?:OBE|CBE|MBE|KBE|DBE|OC|OBC|FRSE?|PC|MP|QC|KC)\b")


def name_part(title: str) -> str:
    """The main name of a title: before a spaced comma (which InfoTabS puts between a name and
    its translations), a bracket or a glued translation, without honorifics and post-nominal
    letters: "Faroe Islands , Føroyar (Faroese)" -> "Faroe Islands", "Bryan AdamsOC OBC" ->
    "Bryan Adams", "SirChristopher LeeCBE, CStJ" -> "Christopher Lee"; "I, Tonya" stays."""
    name = re.split(r"\s+,|\s*\(", title, maxsplit=1)[0].strip()
    name = _TITLE_PREFIX.sub("", name)
    name = _GLUED_POST_NOMINAL.sub("", name)
    name = re.sub(r"\b(\w{3,}ing)(at|of|in)(?= the\b)", r"\1 \2", name)  # "Curlingat the 2018 ..."
    name = _GLUED.split(name, maxsplit=1)[0]
    name = re.sub(r",\s*(?:[A-Z][A-Za-z]{0,3}[A-Z]\s*)+$", "", name.strip())  # ", FRS", ", CStJ" (not ", Tonya")
    words = _words(name)
    while len(words) > 1 and words[-1].lower().strip(".,") in POST_NOMINALS:
        words.pop()
    return " ".join(words) or " ".join(_words(title))


# Titles that are an infobox's section header, not its subject's name (InfoTabS scraped some).
SECTION_HEADERS = word_set("probes/words/section_headers.txt")


def is_name_like(table: Table) -> bool:
    """Whether the title names a subject: not a section header ("Free agent", "History"), not a
    row of letters ("A B C ... Z"), and its words after the first capitalised (a name), bar
    function words ("Breakfast in America")."""
    name = name_part(table.title)
    words = [w for w in re.findall(r"[^\W\d_][\w'’.&-]*", name)]
    if not words or name.lower().strip(": ") in SECTION_HEADERS or all(len(w) == 1 for w in words):
        return False
    return all(w[:1].isupper() or w.lower() in STOP_WORDS for w in words[1:])


def bracketed_names(title: str) -> list[str]:
    """What a title holds in brackets ("Charles (Prince of Wales)" -> ["Prince of Wales"]): often
    the subject's other name, so an entity probe must not replace it (a language name such as
    "(Faroese)" is excluded from nothing by this, only protected)."""
    return [inner.strip() for inner in re.findall(r"\(([^()]*)\)", title) if inner.strip()]


def is_person(table: Table) -> bool:
    """A person's table: a "Born" row, or the Person category (a band or a duo of the Musician
    category has none; "Cher" and "Common" do)."""
    return table.category == "Person" or any(key.strip().casefold() == "born" for key in table.keys)


def forms(table: Table) -> list[tuple[str, str]]:
    """(surface form, kind) a hypothesis may name the subject by, longest first: "title" (the
    whole title), "name" (its name part, also without a leading "The"), "place" (a place's name
    before its state or country: "Columbus" of "Columbus, Georgia") and, for people, "surname"."""
    full = " ".join(_words(table.title))
    name = name_part(table.title)
    found = [(full, "title"), (name, "name")]
    if name.lower().startswith("the "):
        found.append((name[4:], "name"))
    if ", " in name and table.category in PLACE_CATEGORIES:
        place = name.split(", ")[0]
        if len(place) >= 3 and place.lower() not in STOP_WORDS and place[:1].isupper():
            found.append((place, "place"))
    words = _words(name)
    if (
        is_person(table)
        and 2 <= len(words) <= 4
        and all(w[:1].isupper() for w in words)
        and len(words[-1]) >= 3
        and words[-1].lower() not in GROUP_WORDS
    ):
        found.append((words[-1], "surname"))
    seen, out = set(), []
    for form, kind in found:
        if form and form.lower() not in seen:
            seen.add(form.lower())
            out.append((form, kind))
    return sorted(out, key=lambda fk: -len(fk[0]))


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    kind: str  # "title", "name", "place" or "surname"
    article: bool = False  # "the" before the name is part of the span ("the Faroe Islands")
    form: bool = True  # the span is a form of the title (not the subject's name with middle names)


# A capitalised word, whatever follows its capital: "K?lm?n" (a character lost in the data) too.
_CAPITALISED = re.compile(r"[A-Z][^\s]*$")


def _is_name_word(word: str, honorifics: bool = False) -> bool:
    """A capitalised word that can be part of a proper name (not "The", "In", "Since" starting a
    sentence); an honorific ("Princess") only after a name, unless `honorifics`."""
    bare = word.strip('.,;:!?"()[]')
    return (
        bool(_CAPITALISED.match(bare))
        and bare.lower() not in STOP_WORDS
        and (honorifics or bare.lower().strip(".") not in HONORIFICS)
    )


def name_run(text: str, start: int, end: int) -> tuple[int, int]:
    """The longest run of name words around text[start:end] (joined by single spaces or
    hyphens): the whole proper name that span belongs to ("Ciara Princess Harris")."""
    while True:
        before = re.search(r"(\S+)([ -])$", text[:start])
        if not before or not _is_name_word(before.group(1)) or re.search(r"[.,;:!?)]$", before.group(1)):
            break
        start = before.start(1)
    while True:
        after = re.match(r"[ -](\S+)", text[end:])
        if not after or not _is_name_word(after.group(1), honorifics=True):
            break
        word = after.group(1)
        end += 1 + len(re.match(r"[^.,;:!?)'’]*", word).group(0))
        if len(word.rstrip(".,;:!?)")) != len(word) or re.search(r"['’]", word):
            break
    return start, end


def mentions(text: str, table: Table) -> list[Mention]:
    """Where `text` names the table's subject, in order: a form of its title as whole words (the
    title and name case-insensitively, a surname or place name as capitalised), a possessive
    ("Adams's", "Adams'") left outside the span, longer forms first. A form inside a longer
    proper name is another name ("Christopher Columbus", "Beau Bridges") and no mention, unless
    that name is the subject's own with middle names ("Brandon Richard Flowers" for Brandon
    Flowers), which is then the mention."""
    name_words = _words(name_part(table.title))
    taken = [False] * (len(text) + 1)
    found = []
    for form, kind in forms(table):
        flags = 0 if kind in ("surname", "place") else re.IGNORECASE
        # whole words, not inside a web address ("Brockhampton.com") or a hyphenated word
        pattern = re.compile(
            r"(?<![\w./@-])" + r"\s+".join(map(re.escape, form.split())) + r"(?![\w]|-\w|[./@]\w)", flags
        )
        for match in pattern.finditer(text):
            start, end = match.span()
            # an honorific before the name belongs to the mention ("Dame Julie Andrews")
            while (
                (honorific := re.search(r"(\S+) $", text[:start]))
                and honorific.group(1).lower().strip(".") in HONORIFICS
                and honorific.group(1)[:1].isupper()
            ):
                start = honorific.start(1)
            run = name_run(text, start, end)
            if run != (start, end):
                run_words = _words(text[run[0] : run[1]])
                full_name = (
                    len(name_words) >= 2
                    and kind in ("surname", "name")
                    and is_person(table)
                    and run_words[0] == name_words[0]
                    and run_words[-1] == name_words[-1]
                )
                if not full_name:
                    continue  # part of another name
                (start, end), kind_here, is_form = run, "name", False
            else:
                kind_here, is_form = kind, start == match.start()
            article = re.search(r"\b[Tt]he $", text[:start])
            if article and not text[start:end].lower().startswith("the "):
                start = article.start()  # "the Faroe Islands": the partner may take none ("Japan")
            if not any(taken[start:end]):
                taken[start:end] = [True] * (end - start)
                found.append(Mention(start, end, kind_here, bool(article), is_form))
    return sorted(found, key=lambda m: m.start)


# Rows that give the subject another name: an entity found there is the subject itself.
ALIAS_KEYS = word_set("probes/words/alias_keys.txt")


def subject_names(table: Table) -> list[str]:
    """Every name the table gives its subject, lower case: the forms of its title, the names it
    lists and brackets, the values of its alias rows (birth name, also known as, ...) and the
    name a "Born" value starts with ("Brandon Richard Flowers June 21, 1981 ...")."""
    names = [form.lower() for form, _ in forms(table)]
    names += [n.lower() for n in bracketed_names(table.title)]
    names += [re.sub(r"\s*\([^)]*\)", "", n).strip().lower() for n in re.split(r"\s+,\s*", table.title)]
    for row in table.rows:
        key = " ".join(row.key.lower().split())
        if key in ALIAS_KEYS:
            names += [v.lower() for v in row.values]
        elif key == "born":
            names += [m.group(0).strip().lower() for v in row.values if (m := re.match(r"[^\d(]*[A-Za-z]", v))]
    return [" ".join(n.split()) for n in names if len(n.strip()) >= 2]


def names_subject(entity_text: str, table: Table) -> bool:
    """Whether an entity (as the parser found it) is the table's subject or part of one of its
    names (subject_names), or holds one."""
    entity = re.sub(r"^(?:the|a|an)\s+", "", " ".join(_words(entity_text)), flags=re.IGNORECASE).lower()
    if len(entity) < 2:
        return False
    return any(entity in n or n in entity for n in subject_names(table))


# Hypotheses about the name itself ("named after", "birth name", "known as"): a counterfactual
# that renames the subject changes what they say.
ABOUT_THE_NAME = re.compile(
    r"\b(?:name[ds]?|naming|called|known as|nickname[ds]?|born as|stands? for|"
    r"spell(?:ed|s|ing)?|title[ds]?)\b",
    re.IGNORECASE,
)


def attested_names(table: Table, hypotheses: Iterable[str]) -> dict[str, str]:
    """kind -> the form of the subject's name that its own hypotheses use (the longest of each
    kind found): what annotators call it, so it can stand in another sentence. A title that
    no hypothesis uses ("Free agent" on a footballer's table) attests nothing."""
    out: dict[str, str] = {}
    articles = Counter()
    for text in hypotheses:
        for mention in mentions(text, table):
            if not mention.form:
                continue  # "Hiram Hamilton Maxim" may be another Maxim than the title's
            span = text[mention.start : mention.end]
            if mention.article:
                span = re.sub(r"^[Tt]he ", "", span)
            articles[mention.article] += 1
            form = _as_in_title(" ".join(_words(span)), table)
            kind = "name" if mention.kind == "title" else mention.kind
            if len(form) > len(out.get(kind, "")):
                out[kind] = form
    if articles[True] > articles[False]:
        out["article"] = "the"  # "the United States": its hypotheses write it with "the"
    surname = next((form for form, kind in forms(table) if kind == "surname"), None)
    if "name" in out and "surname" not in out and surname:
        out["surname"] = surname  # a person named in full may be named by the last word of that name
    return out


def _as_in_title(form: str, table: Table) -> str:
    """A form as the title spells it (hypotheses may write "fearless" for "Fearless")."""
    title = " ".join(_words(table.title))
    at = title.lower().find(form.lower())
    return title[at : at + len(form)] if at >= 0 else form


def hypotheses_by_table(docs: Mapping[str, object]) -> dict[str, list[str]]:
    """table id -> the split's hypotheses about it, from the split's parses."""
    out: dict[str, list[str]] = {}
    for uid in sorted(docs):
        doc = docs[uid]
        out.setdefault(doc.user_data.get("table_id"), []).append(doc.text)
    return out


def replacement(mention: Mention, partner: Mapping[str, str]) -> str | None:
    """What replaces a mention of one subject by another (`partner`: its attested_names): a
    surname by its surname, a place by its place name, where it has them; else its whole name
    (None when its hypotheses never give it one)."""
    if mention.kind in ("surname", "place") and mention.kind in partner:
        name = partner[mention.kind]
    else:
        name = partner.get("name")
    if name is None or not mention.article or name.lower().startswith("the "):
        return name
    return f"the {name}" if partner.get("article") else name


def swap_mentions(text: str, table: Table, partner: Mapping[str, str]) -> tuple[str, list[dict]]:
    """`text` with every mention of `table`'s subject replaced by the partner's name
    (`partner`: its attested_names); the edits ({start, end, old, new, kind}) for provenance.
    NotApplicable when the text never names its subject."""
    from .base import NotApplicable

    found = mentions(text, table)
    if not found:
        raise NotApplicable("the hypothesis never names the table's subject")
    if ABOUT_THE_NAME.search(text):
        raise NotApplicable("the hypothesis is about the subject's name (renaming it changes the label)")
    out, edits, shift = text, [], 0
    for m in found:
        new = replacement(m, partner)
        if new is None:
            raise NotApplicable("the partner's hypotheses never give its whole name")
        end = m.end
        old = text[m.start : end]
        if old[:1].isupper() and new[:1].islower():
            new = new[0].upper() + new[1:]  # "The Faroe Islands" -> "The United States"
        after = text[end:]
        if old[:4].casefold() == "the " and not new.casefold().startswith("the ") and NOUN_AFTER_NAME.match(after):
            new = old[:4] + new  # "on the Beautifully Unconventional song": the article belongs to "song"
        quoted = text[max(m.start - 1, 0) : m.start] in ("'", "‘")  # "'Fearless' was released": a closing quote
        if (
            re.match(r"['’](?![sS]\b)", after)
            and not quoted
            and old.endswith(("s", "S"))
            and not new.endswith(("s", "S"))
        ):
            end, new = end + 1, new + after[0] + "s"  # "Cape Cross' sire" -> "Kauto Star's sire"
        elif "," in old and after.startswith(",") and "," not in new:
            end += 1  # "Jean, the Vitagraph Dog, died" -> "Hope died": the apposition's closing comma
        old = text[m.start : end]
        out = out[: m.start + shift] + new + out[end + shift :]
        shift += len(new) - len(old)
        edits.append({"start": m.start, "end": end, "old": old, "new": new, "kind": m.kind})
    return out, edits


# A noun the subject's name qualifies ("the X song"): a "the" before the name is the noun's.
NOUN_AFTER_NAME = re.compile(
    r"\s+(?:song|songs|album|albums|single|film|movie|band|group|team|club|book|novel|"
    r"series|show|game|character|tour|era|race|event|festival|award|prize|cup|league|"
    r"championship|tournament|marathon|stadium|bridge|ship|station)\b"
)


def same_subject(a: Table, b: Table, names: Mapping[str, Mapping[str, str]]) -> bool:
    """Two tables of one subject (InfoTabS has twins: two "Karen Gillan" tables): the same name
    part of the title, or the same attested name."""
    if name_part(a.title).casefold() == name_part(b.title).casefold():
        return True
    name_a, name_b = names.get(a.table_id, {}).get("name"), names.get(b.table_id, {}).get("name")
    return bool(name_a) and bool(name_b) and name_a.casefold() == name_b.casefold()


_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.IGNORECASE)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.IGNORECASE)


def attested_gender(hypotheses: Iterable[str]) -> str:
    """ "he" or "she" when the hypotheses about a person call them only so, else "": a subject
    named in a sentence that says "his" must be someone the sentence can call "his"."""
    he = sum(len(_HE.findall(text)) for text in hypotheses)
    she = sum(len(_SHE.findall(text)) for text in hypotheses)
    return "he" if he and not she else "she" if she and not he else ""


def split_names(ctx) -> dict[str, dict[str, str]]:
    """table id -> attested_names, and under "gender" the attested_gender of a person, for every
    table of the split (built once per split)."""
    if "subject_names" not in ctx.shared:
        hypotheses = hypotheses_by_table(ctx.docs)
        names = {}
        for table_id, table in sorted(ctx.tables.items()):
            names[table_id] = attested_names(table, hypotheses.get(table_id, ()))
            if is_person(table):
                names[table_id]["gender"] = attested_gender(hypotheses.get(table_id, ()))
        ctx.shared["subject_names"] = names
    return ctx.shared["subject_names"]


def _subject_renamed(example, table, out):
    """After a counterfactual swap the hypothesis names the new subject, never the old one, and
    the table carries the new subject's title."""
    left = mentions(out.hypothesis, table)
    if left:
        return f"still names {table.title!r}: {out.hypothesis[left[0].start : left[0].end]!r} in {out.hypothesis!r}"
    if out.table.title == table.title:
        return "the table kept its title"
    return None


SUBJECT_RENAMED = Invariant("names the new subject wherever it named the old one", _subject_renamed)


# ---------------------------------------------------------------- named entities in a table's rows
# Entity substitution (entity_flip, entity_preserve): which names stand where in a table, and
# which names of other tables may take their place.

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
