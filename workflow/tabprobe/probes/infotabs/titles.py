"""How a hypothesis names its table's subject, shared by every probe that finds or replaces it
(counterfactual swaps, modifiers, entity substitution).

InfoTabS titles are messy: several names in one ("Faroe Islands , Føroyar (Faroese)"), post-
nominals ("Bryan Adams OC OBC"), a place with its state ("Columbus, Georgia"), a comma inside a
name ("I, Tonya"), a bracketed name that is the subject too ("Charles (Prince of Wales)"). And a
subject's name occurs inside other names: "named after Christopher Columbus" on the table of
Columbus, Georgia, "Beau Bridges" on Jeff Bridges' table. A mention of the subject is therefore
a form of its title that stands as a whole name in the sentence, never part of a longer one.

The counterfactuals' renaming of the subject is probes/infotabs/counterfactual/subject_swaps.py, the named entities of
a table's rows (entity substitution) probes/infotabs/hypothesis/entity_slots.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tabprobe.data.infobox.table import Table
from tabprobe.probes.shared.stop_words import is_stop_word
from tabprobe.wordlists import word_set

# Categories of places, whose titles may add a state or country ("Columbus, Georgia"); elsewhere
# a comma is part of the name ("Crazy, Stupid, Love.").
PLACE_CATEGORIES = frozenset({"City", "Country"})
# Letters after a name that are not part of it ("Bryan Adams OC OBC", "John Macleod, FRS").
POST_NOMINALS = word_set("probes/words/post_nominals.txt")
# Last words that make a name a group's, not a person's: it has no surname.
GROUP_WORDS = word_set("probes/words/group_words.txt")
# Capitalised words before a name that do not make it another name ("President Obama").
HONORIFICS = word_set("probes/words/honorifics.txt")


def words_of(text: str) -> list[str]:
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
    words = words_of(name)
    while len(words) > 1 and words[-1].lower().strip(".,") in POST_NOMINALS:
        words.pop()
    return " ".join(words) or " ".join(words_of(title))


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
    return all(w[:1].isupper() or is_stop_word(w) for w in words[1:])


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
    full = " ".join(words_of(table.title))
    name = name_part(table.title)
    found = [(full, "title"), (name, "name")]
    if name.lower().startswith("the "):
        found.append((name[4:], "name"))
    if ", " in name and table.category in PLACE_CATEGORIES:
        place = name.split(", ")[0]
        if len(place) >= 3 and not is_stop_word(place) and place[:1].isupper():
            found.append((place, "place"))
    words = words_of(name)
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
        and not is_stop_word(bare)
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
    name_words = words_of(name_part(table.title))
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
                run_words = words_of(text[run[0] : run[1]])
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
    entity = re.sub(r"^(?:the|a|an)\s+", "", " ".join(words_of(entity_text)), flags=re.IGNORECASE).lower()
    if len(entity) < 2:
        return False
    return any(entity in n or n in entity for n in subject_names(table))
