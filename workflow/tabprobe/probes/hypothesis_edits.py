"""Edits of a hypothesis read off its spaCy parse (paper section 4), shared by the hypothesis probes.

Every edit replaces character spans of the original text, so the rest of the sentence stays
byte for byte as the annotator wrote it, and returns a provenance record saying exactly what
changed (`changes`: a list of {start, end, old, new} on the original text) plus the rule used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

# ---------------------------------------------------------------- text surgery


def apply_changes(text: str, changes: Sequence[dict]) -> str:
    """Apply non-overlapping {start, end, new} replacements (offsets into `text`)."""
    out, cursor = [], 0
    for change in sorted(changes, key=lambda c: c["start"]):
        if change["start"] < cursor:
            raise ValueError("overlapping hypothesis edits")
        out += [text[cursor : change["start"]], change["new"]]
        cursor = change["end"]
    out.append(text[cursor:])
    return "".join(out)


def change(text: str, start: int, end: int, new: str) -> dict:
    return {"start": start, "end": end, "old": text[start:end], "new": new}


# ---------------------------------------------------------------- numbers

_PLAIN = re.compile(r"^\d+(?:\.(\d+))?$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.(\d+))?$")
_CLOCK = re.compile(r"^(\d{1,3}):(\d{2})(?::(\d{2}))?$")


@dataclass(frozen=True)
class Number:
    """A number as written in a hypothesis, and how to write another value the same way:
    "1,234" (grouped), "3.5" (one decimal), "1979", "46:06" (minutes:seconds, as in song and
    album lengths; value in seconds)."""

    value: float
    decimals: int = 0
    grouped: bool = False
    clock_parts: int = 0  # 2 for m:ss, 3 for h:mm:ss; 0 for a plain number

    @classmethod
    def parse(cls, text: str) -> "Number | None":
        if m := _CLOCK.match(text):
            parts = [int(p) for p in m.groups() if p is not None]
            if any(p >= 60 for p in parts[1:]):
                return None
            seconds = 0
            for p in parts:
                seconds = seconds * 60 + p
            return cls(float(seconds), clock_parts=len(parts))
        grouped = bool(_GROUPED.match(text))
        m = _GROUPED.match(text) or _PLAIN.match(text)
        if not m:
            return None
        return cls(float(text.replace(",", "")), decimals=len(m.group(1) or ""), grouped=grouped)

    def format(self, value: float) -> str:
        if self.clock_parts:
            seconds = int(round(value))
            if self.clock_parts == 3:
                return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            return f"{seconds // 60}:{seconds % 60:02d}"
        text = f"{value:,.{self.decimals}f}" if self.grouped else f"{value:.{self.decimals}f}"
        return text

    def rounded(self, value: float) -> float:
        """`value` as this number's format can write it."""
        return float(self.format(value).replace(",", "")) if not self.clock_parts else float(round(value))


def is_year(text: str) -> bool:
    return bool(re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", text))


# Monotone function words (paper Table 2, plus the obvious synonyms marked as ours). The value
# is the direction in which the number may move with an ENTAIL label kept: "over 100 minutes"
# stays true at "over 90"; a CONTRADICT label is kept moving the other way.
MONOTONE_WORDS: dict[str, str] = {
    "over": "down", "more than": "down", "after": "down",
    "under": "up", "less than": "up", "before": "up",
    # synonyms (this project's reading, same monotonicity)
    "above": "down", "greater than": "down", "at least": "down",
    "below": "up", "fewer than": "up", "at most": "up",
}
PAPER_TABLE2 = frozenset({"over", "more than", "after", "under", "less than", "before"})
TEMPORAL_WORDS = frozenset({"before", "after"})


@dataclass(frozen=True)
class MonotoneNumber:
    word: str  # the function word, lower case ("more than")
    start: int  # character span of the number in the hypothesis
    end: int
    text: str
    number: Number
    temporal: bool  # a year (or date) rather than a count or measure


def monotone_numbers(doc) -> list[MonotoneNumber]:
    """Numbers governed by a monotone function word: the word directly before the number, or,
    for before/after, before the date expression holding the year ("before March 1990")."""
    found = []
    tokens = list(doc)
    for i, token in enumerate(tokens):
        for length in (2, 1):
            phrase = " ".join(t.lower_ for t in tokens[i : i + length])
            if len(tokens[i : i + length]) == length and phrase in MONOTONE_WORDS:
                break
        else:
            continue
        j = i + length
        if j >= len(tokens):
            continue
        target = tokens[j]
        if phrase in TEMPORAL_WORDS and target.ent_type_ == "DATE":
            # the year inside the date expression that starts here
            entity = next(e for e in doc.ents if e.start <= j < e.end)
            years = [t for t in entity if is_year(t.text)]
            if entity.start != j or not years:
                continue
            target = years[0]
        number = Number.parse(target.text)
        if number is None or number.value <= 0:
            continue
        temporal = phrase in TEMPORAL_WORDS and (is_year(target.text) or target.ent_type_ == "DATE")
        found.append(MonotoneNumber(phrase, target.idx, target.idx + len(target.text), target.text, number, temporal))
    return found


def moved_value(item: MonotoneNumber, direction: str, large: bool, rng: np.random.Generator) -> float | None:
    """A new value for the number, moved up or down. Small steps keep a label under the monotone
    reading; large steps (half / twice; 30 years for a year) are the paper's heuristic for a flip.
    None when the move is impossible (a value that would reach zero, or rounds back to itself)."""
    value, sign = item.number.value, 1 if direction == "up" else -1
    if item.temporal:
        step = 30 if large else int(rng.integers(1, 6))
        new = value + sign * step
    elif large:
        new = value * 2 if direction == "up" else value / 2
    else:
        step = max(value * float(rng.uniform(0.1, 0.3)), 10.0 ** -item.number.decimals)
        new = value + sign * step
    new = item.number.rounded(new)
    if new <= 0 or new == value:
        return None
    return new


def opposite(direction: str) -> str:
    return "down" if direction == "up" else "up"


def monotone_edit(text: str, item: MonotoneNumber, label: str, flip: bool, rng: np.random.Generator) -> tuple[str, dict] | None:
    """Move a monotone-governed number to keep (`flip=False`) or flip the E/C label."""
    keeps_entail = MONOTONE_WORDS[item.word]
    keeps_label = keeps_entail if label == "E" else opposite(keeps_entail)
    direction = opposite(keeps_label) if flip else keeps_label
    new = moved_value(item, direction, large=flip, rng=rng)
    if new is None:
        return None
    edit = change(text, item.start, item.end, item.number.format(new))
    provenance: dict[str, Any] = {
        "rule": "monotonicity", "function_word": item.word, "direction": direction,
        "word_from_paper_table2": item.word in PAPER_TABLE2, "changes": [edit],
    }
    if flip:
        provenance["heuristic"] = "half/twice" if not item.temporal else "30 years"
    return apply_changes(text, [edit]), provenance


FLIPPED = {"E": "C", "C": "E"}


def is_negated(doc) -> bool:
    return any(t.dep_ == "neg" or t.lower_ in OTHER_NEGATIONS for t in doc)


def monotone_number_probe(example, table, doc, ctx, temporal: bool, flip: bool) -> list:
    """All monotone edits of the hypothesis's numbers (years when `temporal`), one per number."""
    from .base import NotApplicable, ProbeExample

    if is_negated(doc):
        # "not more than 5" is downward monotone: the rules of Table 2 turn around.
        raise NotApplicable("negated sentence (monotonicity reverses)")
    items = [m for m in monotone_numbers(doc) if m.temporal == temporal]
    if not items:
        raise NotApplicable(f"no {'year' if temporal else 'number'} under a monotone function word")
    out = []
    for item in items:
        edited = monotone_edit(example.hypothesis, item, example.label, flip, ctx.rng)
        if edited:
            hypothesis, provenance = edited
            expected = FLIPPED[example.label] if flip else example.label
            out.append(ProbeExample(hypothesis, table, expected, provenance))
    if not out:
        raise NotApplicable("the number cannot move that way (it would reach zero)")
    return out


# ---------------------------------------------------------------- dates

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
_MONTH_INDEX = {m.lower(): i for i, m in enumerate(MONTHS)}


def free_dates(doc) -> list:
    """DATE entities not governed by before/after (those are monotone edits)."""
    governed = {m.start for m in monotone_numbers(doc) if m.temporal}
    return [e for e in doc.ents if e.label_ == "DATE" and not any(e.start_char <= s < e.end_char for s in governed)]


SEASONS = frozenset({"spring", "summer", "autumn", "fall", "winter"})


def generalise_date(text: str, entity) -> tuple[str, dict] | None:
    """A date made less precise, so ENTAIL is kept: a full date or a season to its year ("on
    March 21, 1979" -> "in 1979", "in the winter of 2008" -> "in 2008"), a lone year after "in"
    to its decade ("in 1969" -> "in the 1960s")."""
    years = [t for t in entity if is_year(t.text)]
    if len(years) != 1:
        return None
    year = years[0]
    before = next((t for t in reversed(entity.doc[: entity.start]) if not t.is_space), None)
    if any(t.lower_ in _MONTH_INDEX or t.lower_ in SEASONS for t in entity):
        edits = [change(text, entity.start_char, entity.end_char, year.text)]
        if before is not None and before.lower_ == "on":
            edits.append(change(text, before.idx, before.idx + 2, "in" if before.text == "on" else "In"))
        return apply_changes(text, edits), {"rule": "date_generalised_to_year", "changes": edits}
    if len(entity) == 1 and before is not None and before.lower_ == "in":
        edit = change(text, year.idx, year.idx + len(year.text), f"the {year.text[:3]}0s")
        return apply_changes(text, [edit]), {"rule": "year_generalised_to_decade", "changes": [edit]}
    return None


def shift_year(text: str, entity, rng: np.random.Generator) -> tuple[str, dict] | None:
    """Move the year of a date by 1 to 10 years: "released in 1979" -> "released in 1986"."""
    years = [t for t in entity if is_year(t.text)]
    if len(years) != 1:
        return None
    year = years[0]
    offset = int(rng.integers(1, 11)) * (1 if rng.random() < 0.5 else -1)
    edit = change(text, year.idx, year.idx + len(year.text), str(int(year.text) + offset))
    return apply_changes(text, [edit]), {"rule": "year_changed", "heuristic": "a single-valued date", "changes": [edit]}


def change_month(text: str, entity, rng: np.random.Generator) -> tuple[str, dict] | None:
    months = [t for t in entity if t.lower_ in _MONTH_INDEX]
    if len(months) != 1:
        return None
    month = months[0]
    others = [m for i, m in enumerate(MONTHS) if i != _MONTH_INDEX[month.lower_]]
    new = others[int(rng.integers(len(others)))]
    edit = change(text, month.idx, month.idx + len(month.text), new if month.text[0].isupper() else new.lower())
    return apply_changes(text, [edit]), {"rule": "month_changed", "heuristic": "a single-valued date", "changes": [edit]}


# ---------------------------------------------------------------- negation

# Words that already negate (other than not / n't): inserting "not" next to them would make a
# double negation whose label no rule predicts.
OTHER_NEGATIONS = frozenset({"no", "none", "nothing", "nobody", "neither", "nor", "never", "without", "nowhere", "cannot"})
# "only has one language" negated is "does not only have one": the scope changes, the label
# does not simply flip.
FOCUS_WORDS = frozenset({"only", "just", "merely", "solely"})
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}


def negation_edit(doc) -> tuple[str, dict] | None:
    """Negate the main clause, or remove its negation: "was released" <-> "was not released",
    "won" <-> "did not win"; ENTAIL and CONTRADICT swap."""
    text = doc.text
    negations = [t for t in doc if t.dep_ == "neg" and t.lower_ in ("not", "n't")]
    if negations:
        neg = negations[0]
        start = neg.idx - 1 if neg.lower_ == "not" and neg.idx > 0 and text[neg.idx - 1] == " " else neg.idx
        edits = [change(text, start, neg.idx + len(neg.text), "")]
        aux = doc[neg.i - 1] if neg.i > 0 else None
        if neg.lower_ == "n't" and aux is not None and aux.lower_ in _CONTRACTED_AUX:
            edits.append(change(text, aux.idx, aux.idx + len(aux.text), _CONTRACTED_AUX[aux.lower_]))
        return apply_changes(text, edits), {"rule": "negation_removed", "changes": edits}
    if is_negated(doc) or any(t.lower_ in FOCUS_WORDS for t in doc):
        return None
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    root = roots[0]
    if any(c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") for c in root.children):
        # "born in X and lives in Y": negating one conjunct flips E to C but not C to E
        return None
    auxiliaries = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    if root.pos_ == "AUX":  # copula: "X is a film" -> "X is not a film"
        anchor = root
    elif auxiliaries:  # "was born" -> "was not born", "has won" -> "has not won"
        anchor = auxiliaries[0]
    elif root.pos_ == "VERB" and root.tag_ in _DO_SUPPORT and root.lemma_:
        # "won" -> "did not win": do-support with the verb's lemma
        edit = change(text, root.idx, root.idx + len(root.text), f"{_DO_SUPPORT[root.tag_]} not {root.lemma_.lower()}")
        return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}
    else:
        return None
    end = anchor.idx + len(anchor.text)
    edit = change(text, end, end, " not")
    return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}


# ---------------------------------------------------------------- entities

# Person, place and organisation entities (paper section 4: "Named Entities").
ENTITY_TYPES = frozenset({"PERSON", "GPE", "LOC", "FAC", "ORG"})


def table_text(table) -> str:
    return " \n ".join([table.title, *(v for row in table.rows for v in row.values)]).lower()


def strip_article(text: str) -> str:
    """"the Faroe Islands" -> "Faroe Islands": the parser often takes the article into a name."""
    return re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.IGNORECASE)


def title_variants(title: str) -> list[str]:
    """The names a table's title gives its subject, lower case. InfoTabS titles often list several
    ("Faroe Islands , Føroyar (Faroese) , Færøerne (Danish)")."""
    names = [title] + re.split(r"\s*,\s*", title)
    names = [re.sub(r"\s*\([^)]*\)", "", n).strip().lower() for n in names]
    return sorted({n for n in names if len(n) >= 2})


def is_title_mention(entity_text: str, title: str) -> bool:
    name = strip_article(entity_text).lower()
    return len(name) >= 2 and any(name in v or v in name for v in title_variants(title))


def entity_pool(docs, tables) -> dict[str, list[str]]:
    """Per entity type, the sorted distinct names that hypotheses share with their own table,
    kept only where the name is a whole value of that table (so every substitute is an entity
    drawn from another table, typed by the parser, not a fragment of a longer value)."""
    pool: dict[str, set[str]] = {}
    for uid in sorted(docs):
        doc = docs[uid]
        table = tables.get(doc.user_data.get("table_id"))
        if table is None:
            continue
        values = {v.strip().lower() for row in table.rows for v in row.values}
        for entity in doc.ents:
            name = strip_article(entity.text)
            if entity.label_ in ENTITY_TYPES and name.lower() in values and not is_title_mention(name, table.title):
                pool.setdefault(entity.label_, set()).add(name)
    return {label: sorted(names) for label, names in sorted(pool.items())}


def shared_entities(doc, table) -> list:
    """Entities of the hypothesis found in the table's values, other than the table's subject."""
    text = table_text(table)
    return [e for e in doc.ents
            if e.label_ in ENTITY_TYPES and strip_article(e.text).lower() in text and not is_title_mention(e.text, table.title)]


def entity_name_span(entity) -> tuple[int, int]:
    """Character span of the entity without a leading article (which stays in the sentence)."""
    name = strip_article(entity.text)
    return entity.end_char - len(name), entity.end_char


def substitutes(entity, table, pool: dict[str, list[str]]) -> list[str]:
    """Same-type names that appear nowhere in this table."""
    text = table_text(table)
    own = strip_article(entity.text).lower()
    return [c for c in pool.get(entity.label_, []) if c.lower() not in text and own not in c.lower() and c.lower() not in own]


# ---------------------------------------------------------------- modifiers

EVENT_KEYS = frozenset({"born", "died"})


def title_mentions(text: str, title: str) -> list[tuple[int, int]]:
    """Where one of the table's names (its title, or a name listed in it) occurs in the
    hypothesis: case-insensitive, whole words, not as a possessive ("Fearless'", "Ada's")."""
    spans = []
    for name in title_variants(title):
        for m in re.finditer(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text, flags=re.IGNORECASE):
            if not re.match(r"['’]", text[m.end():]):
                spans.append((m.start(), m.end()))
    # the longest name at the earliest place
    return sorted(set(spans), key=lambda span: (span[0], -span[1]))


def modifier_clause(key: str, value: str) -> str | None:
    """A relative clause stating the row, or None for keys that read as verbs without an agent
    ("Recorded", "Released": their preposition is unknown, "whose recorded is" is not English)."""
    key = " ".join(re.sub(r"\(s\)", "", key).strip().lower().split())  # "Demonym(s)" -> "demonym"
    if not key:
        return None
    if key in EVENT_KEYS:
        return f"who was {key} on {value}"
    if key.endswith(" by"):  # "Directed by" -> "which was directed by Paul Feig"
        return f"which was {key} {value}"
    if key.split()[-1].endswith("ed"):
        return None
    return f"whose {key} is {value}"


def ends_a_noun_phrase(doc, end: int) -> bool:
    """True when the mention ending at character `end` is a whole noun phrase: followed by a
    verb, punctuation or nothing, not by more of a compound ("the Faroe Islands government")."""
    following = next((t for t in doc if t.idx >= end and not t.is_space), None)
    return following is None or following.is_punct or following.pos_ in ("AUX", "VERB")


def modifier_edit(text: str, mention: tuple[int, int], key: str, value: str) -> tuple[str, dict]:
    """Add a nominal modifier (a relative clause stating a fact of the table) after the title."""
    clause = modifier_clause(key, value)
    if clause is None:
        raise ValueError(f"no modifier clause for key {key!r}")
    rest = text[mention[1]:].strip()
    closing = "" if not rest or rest[0] in ".,;:!?" else ","
    edit = change(text, mention[1], mention[1], f", {clause}{closing}")
    return apply_changes(text, [edit]), {"rule": "modifier_from_table", "key": key, "value": value, "changes": [edit]}


# ---------------------------------------------------------------- quantifiers

# Comparative quantifiers before a number, and their logical complements: "more than 3" is false
# exactly when "no more than 3" is true, so the swap flips ENTAIL and CONTRADICT by logic alone
# (unlike moving the number, which needs the half/twice heuristic).
QUANTIFIER_COMPLEMENTS: dict[str, str] = {
    "more than": "no more than", "over": "no more than", "greater than": "no more than",
    "less than": "at least", "fewer than": "at least", "under": "at least",
    "at least": "less than", "at most": "more than",
    "no more than": "more than", "no less than": "less than", "no fewer than": "fewer than",
}
_LONGEST_QUANTIFIER = max(len(q.split()) for q in QUANTIFIER_COMPLEMENTS)


def quantifier_edits(doc) -> list[tuple[str, dict]]:
    """Every comparative quantifier directly before a number ("more than 3", "over two",
    "at least 1,000") replaced by its complement, one edit each."""
    text, tokens, out, i = doc.text, list(doc), [], 0
    while i < len(tokens):
        for length in range(_LONGEST_QUANTIFIER, 0, -1):
            span = tokens[i : i + length]
            phrase = " ".join(t.lower_ for t in span)
            if len(span) == length and phrase in QUANTIFIER_COMPLEMENTS and i + length < len(tokens) \
                    and tokens[i + length].like_num:
                break
        else:
            i += 1
            continue
        start, end = span[0].idx, span[-1].idx + len(span[-1].text)
        new = QUANTIFIER_COMPLEMENTS[phrase]
        if text[start].isupper():
            new = new[0].upper() + new[1:]
        edit = change(text, start, end, new)
        out.append((apply_changes(text, [edit]),
                    {"rule": "quantifier_complement", "quantifier": phrase, "complement": QUANTIFIER_COMPLEMENTS[phrase],
                     "changes": [edit]}))
        i += length
    return out
