"""Edits of a hypothesis read off its spaCy parse (paper section 4), shared by the hypothesis probes.

Every edit replaces character spans of the original text, so the rest of the sentence stays
byte for byte as the annotator wrote it, and returns a provenance record saying exactly what
changed (`changes`: a list of {start, end, old, new} on the original text) plus the rule used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .text_edits import apply_changes, change

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
    def parse(cls, text: str) -> Number | None:
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
    "over": "down",
    "more than": "down",
    "after": "down",
    "under": "up",
    "less than": "up",
    "before": "up",
    # synonyms (this project's reading, same monotonicity)
    "above": "down",
    "greater than": "down",
    "at least": "down",
    "below": "up",
    "fewer than": "up",
    "at most": "up",
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
    token: int = -1  # index of the number's token in the parse


# Words before a comparative that make it approximate: "just over 2 minutes" is not "over 2
# minutes", and "just no more than 2" is not English.
APPROXIMATORS = frozenset(
    {
        "just",
        "slightly",
        "roughly",
        "nearly",
        "almost",
        "approximately",
        "about",
        "around",
        "well",
        "far",
        "much",
        "barely",
        "only",
        "little",
        "bit",
        "somewhat",
        "some",
    }
)
TIME_UNITS = frozenset(
    {
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "year",
        "decade",
        "century",
        "millennium",
        "season",
        "night",
        "weekend",
    }
)
# Verbs and prepositions before "over"/"under" + a duration that make it a comparison ("for over
# 3 years", "is over 2 hours long", "lasted over a week"); otherwise "over five days" is a span.
_DURATION_COMPARED = frozenset({"for", "of", "be", "last", "run", "span", "take", "spend", "age", "aged"})


def is_calendar_year(token) -> bool:
    """A year of the calendar, not a duration ("2000 years"), a decade ("the 1500's", "1970s")
    or part of a name ("2008 Men's Olympic football tournament", "1992 Winter Olympics")."""
    if not is_year(token.text):
        return False
    doc = token.doc
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if following is not None:
        if following.lemma_.lower() in TIME_UNITS or following.lower_ in ("'s", "’s", "s", "'", "’"):
            return False
        if following.text[:1].isupper() and following.is_alpha:
            return False
    return True


def comparative_in_context(tokens, i: int, length: int) -> bool:
    """Whether the comparative tokens[i:i+length] before a number compares it: not under an
    approximator, and "over"/"under" before a duration only after "for", a copula or a verb of
    lasting ("drew 465,000 over five days" is a span of time, not a comparison)."""
    previous = tokens[i - 1] if i > 0 else None
    if previous is not None and previous.lower_ in APPROXIMATORS:
        return False
    phrase = " ".join(t.lower_ for t in tokens[i : i + length])
    number = i + length
    unit = tokens[number + 1] if number + 1 < len(tokens) else None
    if phrase in ("over", "under", "above", "below") and unit is not None and unit.lemma_.lower() in TIME_UNITS:
        return previous is not None and previous.lemma_.lower() in _DURATION_COMPARED
    return True


def monotone_numbers(doc) -> list[MonotoneNumber]:
    """Numbers governed by a monotone function word: the word directly before the number, or,
    for before/after, before the date expression holding the year ("before March 1990"). Not
    under an approximator, not a span of time (comparative_in_context), and a year only where
    it is a calendar year."""
    found = []
    tokens = list(doc)
    for i in range(len(tokens)):
        for length in (2, 1):
            phrase = " ".join(t.lower_ for t in tokens[i : i + length])
            if len(tokens[i : i + length]) == length and phrase in MONOTONE_WORDS:
                break
        else:
            continue
        j = i + length
        if j >= len(tokens) or not comparative_in_context(tokens, i, length):
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
        if (temporal or is_year(target.text)) and not is_calendar_year(target):
            continue
        found.append(
            MonotoneNumber(phrase, target.idx, target.idx + len(target.text), target.text, number, temporal, target.i)
        )
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
        step = max(value * float(rng.uniform(0.1, 0.3)), 10.0**-item.number.decimals)
        new = value + sign * step
    new = item.number.rounded(new)
    if new <= 0 or new == value:
        return None
    return new


def opposite(direction: str) -> str:
    return "down" if direction == "up" else "up"


# Whether "word N" holds of a value V.
_HOLDS = {"up": lambda v, n: v < n, "down": lambda v, n: v > n}
_INCLUSIVE = {"at least": lambda v, n: v >= n, "at most": lambda v, n: v <= n}
# Words after a number that scale it: "2 million" is not compared with a cell's "2".
_MULTIPLIERS = frozenset({"thousand", "million", "billion", "trillion", "hundred", "dozen", "percent", "%"})


def claim_holds(word: str, value: float, number: float) -> bool:
    """Whether "{word} {number}" is true of `value` ("over 10" of 13: True)."""
    if word in _INCLUSIVE:
        return _INCLUSIVE[word](value, number)
    return _HOLDS[MONOTONE_WORDS[word]](value, number)


def table_value(item: MonotoneNumber, doc, table) -> tuple[float, dict] | None:
    """The one quantity of the table the number is compared with: a cell holding one number
    whose unit is the word after the number in the hypothesis ("5 km/s", "125 minutes"), or, for
    a cell without a unit, whose key's words are in the hypothesis; None when there is not
    exactly one such cell (then only a person can check the label)."""
    from .number_edits import quantity_cells
    from .table_edits import key_words, stem

    if item.token < 0 or item.temporal:
        return None
    after = doc[item.token + 1] if item.token + 1 < len(doc) else None
    unit = after.lower_.rstrip("s") if after is not None and not after.is_punct else ""
    if unit in _MULTIPLIERS or unit.rstrip("s") in _MULTIPLIERS:
        return None
    words = {stem(w) for w in re.findall(r"[a-z]+", doc.text.casefold())}
    matches = []
    for r, v, value, cell_unit in quantity_cells(table):
        first = cell_unit.split()[0].lower().rstrip("s") if cell_unit else ""
        if (first and first == unit) or (not first and key_words(table.rows[r].key) & words):
            matches.append((float(value), {"key": table.rows[r].key, "value": table.rows[r].values[v]}))
    return matches[0] if len(matches) == 1 else None


def monotone_edit(
    text: str, item: MonotoneNumber, label: str, flip: bool, rng: np.random.Generator, doc=None, table=None
) -> tuple[str, dict] | None:
    """Move a monotone-governed number to keep (`flip=False`) or flip the E/C label. Where the
    table holds the one quantity the number is compared with (table_value), the new label is
    checked against it: an edit the table contradicts is None, one it confirms is no heuristic
    but `checked`. None too for a move that breaks agreement ("1 minutes", "2 minute")."""
    keeps_entail = MONOTONE_WORDS[item.word]
    keeps_label = keeps_entail if label == "E" else opposite(keeps_entail)
    direction = opposite(keeps_label) if flip else keeps_label
    new = moved_value(item, direction, large=flip, rng=rng)
    if new is None:
        return None
    if doc is not None and item.token + 1 < len(doc):
        noun = doc[item.token + 1]
        if (new == 1 and noun.tag_ in ("NNS", "NNPS")) or (item.number.value == 1 and new != 1 and noun.tag_ == "NN"):
            return None
    edit = change(text, item.start, item.end, item.number.format(new))
    provenance: dict[str, Any] = {
        "rule": "monotonicity",
        "function_word": item.word,
        "direction": direction,
        "word_from_paper_table2": item.word in PAPER_TABLE2,
        "changes": [edit],
    }
    checked = table_value(item, doc, table) if doc is not None and table is not None else None
    if checked is not None:
        value, cell = checked
        expected = FLIPPED[label] if flip else label
        if claim_holds(item.word, value, item.number.value) != (label == "E"):
            return None  # the table's quantity does not give the gold label: not the one compared
        if claim_holds(item.word, value, new) != (expected == "E"):
            return None  # the move did not reach the label it claims
        provenance["checked"] = cell
    elif flip:
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
    if quantified_subject(doc):
        # "Anyone with over 12,000 yards is ...": a number in the subject's restrictor turns around
        raise NotApplicable("a quantified or counted subject (monotonicity is not the predicate's)")
    items = [m for m in monotone_numbers(doc) if m.temporal == temporal]
    if not items:
        raise NotApplicable(f"no {'year' if temporal else 'number'} under a monotone function word")
    bounded = re.compile(
        r"\b(?:over|more than|less than|under|about|approximately|around|nearly|almost|at least|"
        r"at most|up to|c\.|circa|~)\s*$|\+\s*$",
        re.IGNORECASE,
    )
    out = []
    for item in items:
        if flip and any(
            bounded.search(value[: m.start()])
            for row in table.rows
            for value in row.values
            for m in re.finditer(r"(?<![\d,.])" + re.escape(item.text) + r"(?![\d])", value)
        ):
            continue  # the table gives only a bound ("Over 1600 Fellows"): a doubled claim is NEUTRAL
        edited = monotone_edit(example.hypothesis, item, example.label, flip, ctx.rng, doc, table)
        if edited:
            hypothesis, provenance = edited
            expected = FLIPPED[example.label] if flip else example.label
            out.append(ProbeExample(hypothesis, table, expected, provenance))
    if not out:
        raise NotApplicable("the number cannot move that way (it would reach zero)")
    return out


# ---------------------------------------------------------------- dates

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_INDEX = {m.lower(): i for i, m in enumerate(MONTHS)}


SEASONS = frozenset({"spring", "summer", "autumn", "fall", "winter"})
# Words next to a date that put it into a range, a deadline or a list, where changing or widening
# it does not simply keep or flip the claim ("from 1981 to 1983", "succeeded by 24 December 1521",
# "married since 2017"; a comparison "more awards in 2015 than in 2008" is caught by "than").
_DATE_BEFORE = frozenset(
    {"from", "to", "until", "till", "through", "between", "since", "by", "and", "or", "–", "-", "—"}
)
_DATE_AFTER = frozenset({"to", "until", "till", "through", "and", "or", "–", "-", "—"})


def free_dates(doc, title: str = "") -> list:
    """DATE entities that temporal edits may change: the only date of the sentence, not governed
    by before/after (those are monotone edits), by since/until/by or in a range, list or
    comparison (_DATE_BEFORE, _DATE_AFTER, "than"), holding one calendar year (no duration "2000 years", decade "the 1500's",
    event name "2008 Men's Olympic football tournament") that is not part of the table's title."""
    dates = [e for e in doc.ents if e.label_ == "DATE"]
    if len(dates) != 1 or any(t.lower_ == "than" for t in doc):
        return []
    entity = dates[0]
    before = doc[entity.start - 1].lower_ if entity.start > 0 else ""
    after = doc[entity.end].lower_ if entity.end < len(doc) else ""
    if before in _DATE_BEFORE or after in _DATE_AFTER or any(t.lower_ in _DATE_BEFORE - {"and", "or"} for t in entity):
        return []
    governed = {m.start for m in monotone_numbers(doc) if m.temporal}
    years = [t for t in entity if is_year(t.text)]
    if any(entity.start_char <= s < entity.end_char for s in governed) or len(years) != 1:
        return []
    if not is_calendar_year(years[0]) or years[0].text in title or any(t.lemma_.lower() in TIME_UNITS for t in entity):
        return []
    return [entity]


def generalise_date(text: str, entity) -> tuple[str, dict] | None:
    """A date made less precise, so ENTAIL is kept: a full date or a season to its year ("on
    March 21, 1979" -> "in 1979", "in the winter of 2008" -> "in 2008"), a lone year after "in"
    to its decade ("in 1969" -> "in the 1960s")."""
    years = [t for t in entity if is_year(t.text)]
    if len(years) != 1:
        return None
    year = years[0]
    before = next((t for t in reversed(entity.doc[: entity.start]) if not t.is_space), None)
    if any(t.lower_ == "winter" for t in entity):
        return None  # the winter of 2008 runs into 2009
    if any(t.lower_ in _MONTH_INDEX or t.lower_ in SEASONS for t in entity):
        if before is None or before.lower_ not in ("on", "in", "of", "during"):
            return None  # "took office November 25, 2008" -> "took office 2008" is not English
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
    if len(years) != 1 or any(t.lower_ in SEASONS for t in entity):
        return None  # a season crosses a year's end ("the winter of 2007" holds January 2008)
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
    return apply_changes(text, [edit]), {
        "rule": "month_changed",
        "heuristic": "a single-valued date",
        "changes": [edit],
    }


# ---------------------------------------------------------------- negation

# Words that already negate (other than not / n't): inserting "not" next to them would make a
# double negation whose label no rule predicts.
OTHER_NEGATIONS = frozenset(
    {"no", "none", "nothing", "nobody", "neither", "nor", "never", "without", "nowhere", "cannot"}
)
# "only has one language" negated is "does not only have one": the scope changes, the label
# does not simply flip.
FOCUS_WORDS = frozenset({"only", "just", "merely", "solely"})
# Adverbs under which "not" does not negate the claim: "barely made a profit" -> "barely did not
# make" says something else; "also won" -> "did not also win" keeps a presupposition.
HEDGES = frozenset(
    {
        "barely",
        "hardly",
        "scarcely",
        "likely",
        "probably",
        "possibly",
        "perhaps",
        "nearly",
        "almost",
        "approximately",
        "roughly",
        "about",
        "also",
        "even",
        "already",
        "still",
        "too",
        "largely",
        "mostly",
        "mainly",
        "partly",
        "usually",
        "often",
        "sometimes",
        "generally",
        "once",
    }
)
# Words that need a negation to be English: removing "not" from "does not have any" leaves
# "does have any" (negative-polarity items).
POLARITY_ITEMS = frozenset(
    {"any", "anyone", "anybody", "anything", "anywhere", "ever", "yet", "either", "until", "till", "whatsoever"}
)
# Determiners and quantifiers of a subject under which negating the verb does not negate the
# sentence: "Some nations do not send ...", "All drinks are not sugar free".
QUANTIFYING = frozenset(
    {
        "some",
        "all",
        "each",
        "every",
        "most",
        "many",
        "few",
        "several",
        "any",
        "no",
        "both",
        "more",
        "less",
        "fewer",
        "almost",
        "nearly",
        "over",
        "under",
        "about",
        "a",
        "an",
        "anyone",
        "anybody",
        "everyone",
        "everybody",
        "someone",
        "somebody",
        "one",
        "half",
        "majority",
        "minority",
        "third",
        "quarter",
        "percent",
        "%",
        "rest",
        "none",
        "either",
    }
)
_MODALS = frozenset(
    {
        "be",
        "have",
        "do",
        "will",
        "would",
        "can",
        "could",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "ought",
        "need",
        "dare",
    }
)
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
# Verbs whose past tense is their base form ("put", "cut"): the only VBD forms equal to a lemma.
_SAME_PAST = frozenset(
    {
        "put",
        "cut",
        "hit",
        "set",
        "let",
        "cost",
        "hurt",
        "shut",
        "quit",
        "spread",
        "bet",
        "bid",
        "broadcast",
        "burst",
        "cast",
        "read",
        "split",
        "upset",
    }
)
_SUBJECTS = ("nsubj", "nsubjpass", "expl", "csubj")


def quantified_subject(doc) -> bool:
    """Whether the main clause's subject is quantified, counted or indefinite ("Some nations",
    "10 nations", "More than 50 people", "Anyone with over 12,000 yards", "An act"): there a
    negation or a number moved in the predicate does not simply flip the sentence."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    for root in roots:
        # the subject, and what floats between it and the verb ("The suspects all work")
        before = [t for c in root.children if c.dep_ in _SUBJECTS for t in c.subtree] + [
            t for t in doc[: root.i] if t.dep_ in ("advmod", "det", "predet", "quantmod", "nummod")
        ]
        for token in before:
            if token.lower_ in QUANTIFYING or (token.like_num and not is_year(token.text)) or token.dep_ == "quantmod":
                return True
    return False


def within_a_name(token, doc) -> bool:
    """A capitalised function word mid-sentence, or a word inside a named entity ("Dead Can
    Dance", "Can't Buy a Thrill")."""
    return (token.i > 0 and token.text[:1].isupper()) or token.ent_type_ != ""


def negation_edit(doc) -> tuple[str, dict] | None:
    """Negate the main clause, or remove its negation: "was released" <-> "was not released",
    "won" <-> "did not win", "got married" <-> "did not get married", "has been active" <-> "has
    not been active"; ENTAIL and CONTRADICT swap. None wherever the edit would not simply negate
    the claim in plain English (see the guards below)."""
    text = doc.text
    if text.upper() == text or quantified_subject(doc):
        return None  # all capitals (no reliable tags), or a quantified subject
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    root = roots[0]
    if not any(c.dep_ in _SUBJECTS and c.i < root.i for c in root.children):
        return None  # no clause with a subject before its verb (a fragment, a mis-parse)
    if any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") for t in doc) or (
        root.i + 1 < len(doc) and doc[root.i + 1].text == ","
    ):
        return None  # "wrote, directed and starred": negating one verb of several
    if any(t.lower_ in HEDGES | FOCUS_WORDS for t in doc):
        return None
    if any(t.pos_ == "ADV" and t.head == root and t.i < root.i and t.lower_ not in ("not", "n't") for t in doc):
        return None  # "first wrestled" -> "first did not wrestle": "not" would land after the adverb
    negations = [t for t in doc if t.dep_ == "neg" and t.lower_ in ("not", "n't")]
    if negations:
        neg = negations[0]
        if neg.head != root and neg.head.head != root or within_a_name(neg, doc) or len(negations) > 1:
            return None
        if any(t.lower_ in POLARITY_ITEMS for t in doc[neg.i :]) or any(t.lower_ in OTHER_NEGATIONS for t in doc):
            return None
        start = neg.idx - 1 if neg.lower_ == "not" and neg.idx > 0 and text[neg.idx - 1] == " " else neg.idx
        edits = [change(text, start, neg.idx + len(neg.text), "")]
        aux = doc[neg.i - 1] if neg.i > 0 else None
        if aux is not None and within_a_name(aux, doc):
            return None
        if neg.lower_ == "n't" and aux is not None and aux.lower_ in _CONTRACTED_AUX:
            edits.append(change(text, aux.idx, aux.idx + len(aux.text), _CONTRACTED_AUX[aux.lower_]))
        return apply_changes(text, edits), {"rule": "negation_removed", "changes": edits}
    if is_negated(doc):
        return None
    auxiliaries = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    if any(a.lemma_.lower() == "have" for a in auxiliaries) and any(t.lower_ in ("since", "for") for t in doc):
        return None  # "has not been active since his teens" reads as "inactive since then", not as the negation
    if auxiliaries:  # "was born" -> "was not born", "has been active" -> "has not been active"
        anchor = auxiliaries[0]
        if anchor.lemma_.lower() not in _MODALS:  # "got married" -> "did not get married"
            return _do_support(text, anchor)
    elif root.lemma_.lower() == "be":  # copula or existential: "is a film", "There are" -> "is not", "are not"
        anchor = root
    elif root.pos_ == "VERB":  # "won" -> "did not win": do-support with the verb's lemma
        return _do_support(text, root)
    else:
        return None
    if within_a_name(anchor, doc) or anchor.text.startswith(("'", "’")):
        return None
    end = anchor.idx + len(anchor.text)
    edit = change(text, end, end, " not")
    return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}


def _do_support(text: str, verb) -> tuple[str, dict] | None:
    """ "won" -> "did not win": the verb's lemma after do in the verb's tense and person. None for
    a form that does not look like its tag (a noun mis-tagged as a verb: "rankings"), or a verb
    inside a name."""
    tag, form, lemma = verb.tag_, verb.lower_, verb.lemma_.lower()
    if tag not in _DO_SUPPORT or not lemma.isalpha() or verb.text[:1].isupper() or verb.ent_type_:
        return None
    if (tag == "VBZ" and not form.endswith("s")) or (tag == "VBD" and form == lemma and form not in _SAME_PAST):
        return None
    if tag == "VBP":
        # "do" needs a plural subject or I/you/we/they; a title ("Dear White People wound up")
        # is one thing, and its verb was mis-tagged
        subjects = [c for c in verb.children if c.dep_ in _SUBJECTS]
        if (
            form != lemma
            or not subjects
            or not (subjects[0].tag_ == "NNS" or subjects[0].lower_ in ("i", "you", "we", "they"))
        ):
            return None
    edit = change(text, verb.idx, verb.idx + len(verb.text), f"{_DO_SUPPORT[tag]} not {lemma}")
    return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}


# ---------------------------------------------------------------- quantifiers

# Comparative quantifiers before a number, and their logical complements: "more than 3" is false
# exactly when "no more than 3" is true, so the swap flips ENTAIL and CONTRADICT by logic alone
# (unlike moving the number, which needs the half/twice heuristic).
QUANTIFIER_COMPLEMENTS: dict[str, str] = {
    "more than": "no more than",
    "over": "no more than",
    "greater than": "no more than",
    "less than": "at least",
    "fewer than": "at least",
    "under": "at least",
    "at least": "less than",
    "at most": "more than",
    "no more than": "more than",
    "no less than": "less than",
    "no fewer than": "fewer than",
}
_LONGEST_QUANTIFIER = max(len(q.split()) for q in QUANTIFIER_COMPLEMENTS)


def quantifier_edits(doc) -> list[tuple[str, dict]]:
    """Every comparative quantifier directly before a number ("more than 3", "over two",
    "at least 1,000") replaced by its complement, one edit each; not under an approximator
    ("just over 2 minutes") or where "over" spans time ("held over two weeks")."""
    text, tokens, out, i = doc.text, list(doc), [], 0
    while i < len(tokens):
        for length in range(_LONGEST_QUANTIFIER, 0, -1):
            span = tokens[i : i + length]
            phrase = " ".join(t.lower_ for t in span)
            if (
                len(span) == length
                and phrase in QUANTIFIER_COMPLEMENTS
                and i + length < len(tokens)
                and tokens[i + length].like_num
                and comparative_in_context(tokens, i, length)
            ):
                break
        else:
            i += 1
            continue
        start, end = span[0].idx, span[-1].idx + len(span[-1].text)
        new = QUANTIFIER_COMPLEMENTS[phrase]
        if text[start].isupper():
            new = new[0].upper() + new[1:]
        edit = change(text, start, end, new)
        out.append(
            (
                apply_changes(text, [edit]),
                {
                    "rule": "quantifier_complement",
                    "quantifier": phrase,
                    "complement": QUANTIFIER_COMPLEMENTS[phrase],
                    "changes": [edit],
                },
            )
        )
        i += length
    return out
