"""Add a nominal modifier to the table's subject, stating one more fact of the table (paper
section 4, Table 3: "Breakfast in America which was produced by Pete Henderson is a pop album
..."): a true addition keeps ENTAIL and CONTRADICT.

The clause must be English and true: "whose {key} is {value}" only for a key that names one
attribute in a singular noun ("whose genre is Pop", never "whose genres is" or "whose known for
is"), "who/which was {participle} by {value}" for "Directed by"-style keys, "who was born on
{date}" only for a bare date; the row must hold one plain value (no list, for "is" to be true;
no bracketed aside such as a marriage's end year; no raw formatting such as "(2008)-present");
and the clause goes after a mention of the subject that ends a noun phrase outside brackets,
quotes and coordinations."""

import re

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.titles import is_person
from tabprobe.probes.infotabs.titles import mentions as subject_mentions
from tabprobe.probes.invariants import HYPOTHESIS_EDIT
from tabprobe.probes.shared.text_edits import apply_changes, change, is_plural

MAX_VALUE_CHARS = 40  # long values make run-on hypotheses no annotator would write
# Keys that state no attribute "whose K is V" can carry: verb phrases, parts of a split row
# (InfoTabS flattens "Area: Total / Water"), names of the subject, dates of events.
NOT_ATTRIBUTES = frozenset(
    {
        "known for",
        "also known as",
        "known as",
        "years active",
        "starring",
        "website",
        "total",
        "water",
        "land",
        "metro",
        "urban",
        "rural",
        "density",
        "rank",
        "record",
        "type",
        "year",
        "date",
        "time",
        "number",
        "format",
        "sex",
        "role",
        "focus",
        "era",
        "generation",
        "part of",
        "medium",
        "variants",
        "competitors",
        "commands",
        "house",
        "status",
        "current constitution",
        "schedule",
        "proof",
        "declination",
        "right ascension",
        "elevation",
        "highest elevation",
        "established",
        "founded",
        "formation",
        "released",
        "recorded",
        "signed",
        "successor",
        "predecessor",
        "preceded by",
        "succeeded by",
        "followed by",
        "replaced by",
        "other",
        "notes",
        "note",
        "features",
        "first",
        "last",
        "next",
        "television",
        "radio",
        "film",
        "films",
        "body",
        "beard",
        "accession",
        "settlement",
        "random chance",
        # rows of a planet's host star, which InfoTabS puts in the planet's table
        "spectral type",
        "apparent magnitude",
        "temperature",
        "distance",
        "mass",
        "radius",
        "luminosity",
        "metallicity",
        "age",
        "olympic",
    }
)
# Keys under which a date names an event of the subject's history ("Republic: 17 June 1944"),
# not an attribute; these may hold dates.
DATE_KEYS = ("date", "born", "died", "released", "founded", "established", "opened", "premiere", "published")
_DATE_VALUE = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})\b|\bc\.\s*\d|\b\d+(?:st|nd|rd|th) century\b|\b(?:BCE|BC|AD|CE)\b|"
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b"
)
# A placeholder or cross-reference instead of a value.
PLACEHOLDER = re.compile(r"^(?:see\b|none$|n/?a$|unknown$|tba$|tbd$|various$|yes$|no$)|XXX", re.IGNORECASE)
# Keys whose value is one place of several levels ("Bedford, New Hampshire, U.S."): the only
# values a comma may sit in.
PLACE_KEYS = frozenset(
    {
        "residence",
        "origin",
        "location",
        "home town",
        "hometown",
        "birthplace",
        "headquarters",
        "place of birth",
        "country of origin",
        "resting place",
        "place",
    }
)
# Participles of "X by" keys that read "which was X by V" ("Directed by", "Written by").
IRREGULAR_PARTICIPLES = frozenset(
    {
        "written",
        "drawn",
        "sung",
        "made",
        "built",
        "run",
        "held",
        "led",
        "won",
        "shown",
        "given",
        "taken",
        "chosen",
        "driven",
        "ridden",
        "brought",
        "bought",
        "taught",
    }
)
BARE_DATE = re.compile(
    r"^(?:\d{1,2} )?(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December)(?: \d{1,2},)? \d{4}$"
)
# Raw formatting and asides a clause cannot carry: brackets, lists, ranges, labels, ISO dates.
UNFIT_VALUE = re.compile(r"[()\[\]/:;|–—]|\d{4}-\d{2}|\bpresent\b|\s[,.]|^\W|\w-\d|\d-\w", re.IGNORECASE)


def _lower(key: str) -> str:
    """A key inside a sentence: in sentence case its first word in lower case (unless an
    acronym), proper nouns after it kept ("Rank in China" -> "rank in China"); a title-case key
    kept whole ("Prime Minister", never "prime Minister")."""
    words = key.split()
    if len(words) > 1 and all(w[:1].isupper() for w in words):
        return key  # an office in title case ("Prime Minister"); "Rank in China" is in sentence case
    first = words[0] if words[0].isupper() and len(words[0]) > 1 else words[0].lower()
    return " ".join([first, *words[1:]])


def fits_a_clause(value: str, key: str = "") -> bool:
    """A value "whose K is V" can carry: short, one thing (not "Singer, actor, comedian", "Lady and
    Mr. Boscovitch's Dog" or five names in a row; a comma only in a place of several levels,
    "Bedford, New Hampshire, U.S."), no raw formatting ("1935 - 1982", "80% 24 IU", "4043+- 375
    K"), no placeholder ("See Characters"), and no date unless the key is a date's ("Republic: 17
    June 1944" is an event, not an attribute)."""
    value = value.strip()
    if not value or len(value) > MAX_VALUE_CHARS or UNFIT_VALUE.search(value) or PLACEHOLDER.search(value):
        return False
    low = " ".join(re.sub(r"\(s\)", "", key).lower().split())
    if re.fullmatch(r"\d{1,4}(?: BCE| BC| AD| CE)?", value) or (
        _DATE_VALUE.search(value) and not low.endswith(DATE_KEYS)
    ):
        return False
    if (
        re.search(r"\s(?:and|&)\s|\+-|%|\d\s+-\s+\d|\s-\s|\bNo\.\s*\w*\d", value)
        or sum(w[:1].isupper() for w in value.split()) >= 5
    ):
        return False  # a list, a share, a range ("June - December 2004"), a registration number
    if value.endswith(".") and not re.search(r"(?:\b[A-Z]\.)+$|\b(?:Inc|Ltd|Co|Jr|Sr|St)\.$", value):
        return False  # "Paper and ink." ends a sentence of its own
    if low.endswith(DATE_KEYS) and _DATE_VALUE.search(value):
        return True  # "June 5, 2009": the comma of a date
    parts = [p.strip() for p in value.split(",")]
    return len(parts) == 1 or (low in PLACE_KEYS and all(p[:1].isupper() for p in parts))


def modifier_clause(key: str, value: str, person: bool) -> str | None:
    """A relative clause stating the row "key: value", or None when none is English and true."""
    key = " ".join(re.sub(r"\(s\)", "", key).split())
    words, low = key.split(), key.lower()
    if not words or len(words) > 3 or not re.fullmatch(r"[A-Za-z][A-Za-z' -]*", key):
        return None
    if low in ("born", "died"):
        verb = "was born" if low == "born" else "died"
        return f"who {verb} on {value}" if person and BARE_DATE.match(value) else None
    if low in NOT_ATTRIBUTES or "name" in low:
        return None
    if words[-1].lower() in ("of", "from", "for", "in", "to", "at", "with") or any(
        w.lower().endswith(("ed", "en"))
        and w.lower() not in ("garden", "women", "children", "linen", "seven", "eleven")
        for w in words[1:]
    ):
        return None  # "Board member of", "Formerly called", "Constitution amended": no attribute noun
    if low.endswith(" by"):
        participle = words[0].lower()
        if len(words) != 2 or not (participle.endswith("ed") or participle in IRREGULAR_PARTICIPLES):
            return None
        return f"{'who' if person else 'which'} was {low} {value}"
    head = words[0] if " of " in f" {low} " else words[-1]  # "Years of service": years
    if words[0].lower().endswith(("ed", "ing")) or is_plural(head):
        return None  # "Recorded", "Starring", "Genres", "Children"
    return f"whose {_lower(key)} is {value}"


def ends_a_noun_phrase(doc, end: int) -> bool:
    """True when the mention ending at character `end` is a whole noun phrase: followed by a
    verb, punctuation or nothing, not by more of a compound ("the Faroe Islands government")."""
    following = next((t for t in doc if t.idx >= end and not t.is_space), None)
    return following is None or following.is_punct or following.pos_ in ("AUX", "VERB")


def stands_alone(text: str, start: int, end: int) -> bool:
    """A mention a clause may follow: not inside brackets or quotes, not followed by a bracket or
    quote, not one side of a coordination ("East and West Jerusalem", "Jerusalem and Tel Aviv")."""
    before, after = text[:start], text[end:]
    if before.count("(") > before.count(")") or before.count('"') % 2 or re.search(r"[(\"“'‘]\s*$", before):
        return False
    if re.search(r"\bof\s+(?:the\s+)?$", before, re.IGNORECASE) or re.match(r"['’]|\s*,\s*(?:the|a|an)\b", after):
        return False  # "The writer of X, whose ..." reads as the writer's; "Cape Cross' sire"; an appositive
    if re.match(r"\s*[(\"”’]|[.\-/@]\w", after):
        return False  # a bracket or quote follows, or the name is part of a web address ("Brockhampton.com")
    return not re.search(r"\b(?:and|or|&)\s+$", before, re.IGNORECASE) and not re.match(
        r"\s+(?:and|or|&)\b", after, re.IGNORECASE
    )


def modifier_edit(text: str, mention: tuple[int, int], clause: str, key: str, value: str) -> tuple[str, dict]:
    """The hypothesis with `clause` set off by commas after the mention."""
    rest = text[mention[1] :].strip()
    closing = "" if not rest or rest[0] in ".,;:!?" else ","
    if clause.endswith(".") and rest.startswith("."):
        clause = clause[:-1]  # "..., U.S." before the sentence's own full stop: one full stop
    edit = change(text, mention[1], mention[1], f", {clause}{closing}")
    return apply_changes(text, [edit]), {"rule": "modifier_from_table", "key": key, "value": value, "changes": [edit]}


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    text = example.hypothesis
    found = [(m.start, m.end) for m in subject_mentions(text, table)]
    if not found:
        raise NotApplicable("the table's title is not mentioned in the hypothesis")
    found = [m for m in found if ends_a_noun_phrase(doc, m[1]) and stands_alone(text, *m)]
    if not found:
        raise NotApplicable("the title is part of a longer noun phrase, a coordination, brackets or quotes")
    person, lowered = is_person(table), text.lower()
    out = []
    for row in table.rows:
        if len(row.values) != 1:
            continue  # a list: "whose genre is Pop" would be false for a pop and rock album
        value = row.values[0]
        if not fits_a_clause(value, row.key) or value.lower() in lowered or row.key.lower() in lowered:
            continue
        clause = modifier_clause(row.key, value, person)
        if clause is not None:
            hypothesis, provenance = modifier_edit(text, found[0], clause, row.key, value)
            out.append(ProbeExample(hypothesis, table, example.label, provenance))
    if not out:
        raise NotApplicable(
            "no row a clause can state (a list, a long or formatted value, a key that is no "
            "attribute, or already mentioned)"
        )
    return out


PROBE = Probe(
    name="modifier_preserve",
    description="Add a relative clause with a fact of the table after the title mention (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="preserved",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
