"""Edits of a hypothesis read off its spaCy parse (paper section 4), shared by the hypothesis probes.

Every edit replaces character spans of the original text, so the rest of the sentence stays
byte for byte as the annotator wrote it, and returns a provenance record saying exactly what
changed (`changes`: a list of {start, end, old, new} on the original text) plus the rule used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ..wordlists import word_list, word_map, word_set
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
MONOTONE_WORDS: dict[str, str] = word_map("probes/words/monotone_words.txt")
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
APPROXIMATORS = word_set("probes/words/approximators.txt")
TIME_UNITS = word_set("probes/words/time_units.txt")
# Verbs and prepositions before "over"/"under" + a duration that make it a comparison ("for over
# 3 years", "is over 2 hours long", "lasted over a week"); otherwise "over five days" is a span.
_DURATION_COMPARED = word_set("probes/words/duration_compared.txt")


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
    return _HOLDS[DURATION_WORDS[word]](value, number)


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


# ---------------------------------------------------------------- durations

# Units of time and how many of the next smaller unit each holds (a value that is no whole number
# of its unit is written in that one: half an hour is 30 minutes). Seconds to weeks and months to
# centuries are two families: a week is no whole number of months.
DURATION_UNITS: dict[str, tuple[str | None, int]] = {
    "second": (None, 1),
    "minute": ("second", 60),
    "hour": ("minute", 60),
    "day": ("hour", 24),
    "week": ("day", 7),
    "month": (None, 1),
    "year": ("month", 12),
    "decade": ("year", 10),
    "century": ("year", 100),
}
_UNIT_FORMS = {"sec": "second", "secs": "second", "min": "minute", "mins": "minute", "hr": "hour", "hrs": "hour"}
_UNIT_FORMS.update({"yr": "year", "yrs": "year", "centuries": "century"})
_SECONDS = {"second": 1, "minute": 60, "hour": 3600}
_ONES = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
_ONES += "eighteen nineteen"
_TENS = "ten twenty thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS: dict[str, int] = {
    **{word: i for i, word in enumerate(_ONES.split(), 1)},
    **{word: 10 * i for i, word in enumerate(_TENS.split(), 1)},
    "a": 1,
    "an": 1,
}
_WORDS_FOR = {value: word for word, value in NUMBER_WORDS.items() if word not in ("a", "an")}
# The monotone words of numbers (paper Table 2 and synonyms) and the comparatives of durations.
DURATION_WORDS: dict[str, str] = {**MONOTONE_WORDS, "longer than": "down", "shorter than": "up"}
# Words before a number that make a duration no plain amount: an approximation ("close to two
# hours", "about 30 years"), a bound or range ("up to", "between 2 and 3"), a frequency ("once a
# month", "every year"), a part ("half a year", "the last 10 years"), or a comparison already
# read as monotone ("over", "less than").
_NOT_BARE = APPROXIMATORS | word_set("probes/words/not_bare.txt")


@dataclass(frozen=True)
class Duration:
    """A number of units of time in a hypothesis: "46 minutes", "over an hour", "two decades"."""

    start: int  # character span of number and unit ("an hour")
    end: int
    value: float  # in `unit`
    unit: str  # singular ("hour")
    digits: bool  # written in digits ("46"), else in words ("two", "an")
    token: int  # index of the number's token
    word: str | None = None  # the monotone word before it, lower case ("over"), or None: a bare amount
    number: Number | None = None  # how the digits are written, for digits
    article: bool = False  # "an hour", not "one hour" (which counts: "in more than one century")

    @property
    def seconds(self) -> float | None:
        return self.value * _SECONDS[self.unit] if self.unit in _SECONDS else None


def durations(doc) -> list[Duration]:
    """Every number of units of time in the sentence, with the monotone word governing it (as
    monotone_numbers reads one) or None for a bare amount. Not an adjective ("a four year
    hiatus"), a compound ("2 hours and 5 minutes", "one and a half hours"), a frequency, a part,
    a range or an approximation (_NOT_BARE), nor a year ("1999 years" is a duration, "in 1999" no)."""
    tokens, found = list(doc), []
    for i, token in enumerate(tokens[:-1]):
        unit_token = tokens[i + 1]
        unit = _UNIT_FORMS.get(unit_token.lower_, unit_token.lemma_.lower())
        if unit not in DURATION_UNITS:
            continue
        number = Number.parse(token.text) if token.lower_ not in NUMBER_WORDS else None
        if token.lower_ in NUMBER_WORDS:
            value, digits = float(NUMBER_WORDS[token.lower_]), False
        elif number is not None and not number.clock_parts and number.value > 0:
            value, digits = number.value, True
        else:
            continue
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        if value != 1 and unit_token.tag_ == "NN" and unit_token.lower_ not in _UNIT_FORMS:
            continue  # "a four year hiatus": an adjective, whose number agrees with nothing
        if after is not None and (after.lower_ in ("and", "-", "–", "half") or after.text in ("'s", "’s")):
            continue  # "2 hours and 5 minutes", "one-and-a-half", "a year's"
        if i > 0 and tokens[i - 1].lower_ in ("and", "a", "-") and not digits:
            continue  # "one and a half", "a four", "twenty-two"
        word = None
        for length in (2, 1):
            start = i - length
            phrase = " ".join(t.lower_ for t in tokens[max(start, 0) : i])
            if start >= 0 and phrase in DURATION_WORDS:
                if phrase in TEMPORAL_WORDS or not comparative_in_context(tokens, start, length):
                    # an approximated comparative, a span of time, or a gap ("divorced after two
                    # years together" is at two years, not any time after): neither
                    word = ""
                else:
                    word = phrase
                break
        if word == "":
            continue
        if word is None and i > 0 and tokens[i - 1].lower_ in _NOT_BARE | {"in"}:
            continue  # ... and "ran in one year" is a calendar year, not a span
        if i > 1 and tokens[i - 1].lower_ == "of" and tokens[i - 2].lower_ in ("half", "quarter", "third", "part"):
            continue  # "a quarter of a century"
        if word is None and i > 1 and f"{tokens[i - 2].lower_} {tokens[i - 1].lower_}" in ("up to", "as many"):
            continue
        end = unit_token.idx + len(unit_token.text)
        found.append(Duration(token.idx, end, value, unit, digits, i, word, number, token.lower_ in ("a", "an")))
    return found


def _unit_text(unit: str, value: float, like: str) -> str:
    """The unit as the sentence wrote it (an abbreviation stays one: "hrs"), singular for 1."""
    if like.lower() in _UNIT_FORMS and like.lower() != "centuries":
        return like.rstrip("sS") if value == 1 else like
    return unit if value == 1 else {"century": "centuries"}.get(unit, unit + "s")


def write_duration(item: Duration, value: float, unit: str, unit_like: str) -> str:
    """`value` `unit` written the way the sentence wrote the original: digits in its format, or
    words (up to twenty, and tens) where it used words."""
    if item.digits and item.number is not None and unit == item.unit:
        number = item.number.format(value)
    elif not item.digits and value == int(value) and int(value) in _WORDS_FOR:
        number = _WORDS_FOR[int(value)]
    else:
        number = f"{value:,.0f}" if value == int(value) else f"{value:g}"
    return f"{number} {_unit_text(unit, value, unit_like if unit == item.unit else unit)}"


def moved_duration(item: Duration, direction: str, large: bool, rng: np.random.Generator) -> tuple[float, str] | None:
    """A new amount for the duration, moved up or down: by 10-30% (at least one unit) or, when
    `large`, to half or twice (the paper's heuristic for a flip). An amount that is no whole
    number of its unit goes to the next smaller unit ("half an hour" -> 30 minutes). None when
    the move reaches zero or changes nothing; "one century" (a count, not an amount: "active in
    more than one century") changes unit never."""
    value, unit = item.value, item.unit
    if large:
        new = value * 2 if direction == "up" else value / 2
    else:
        step = max(value * float(rng.uniform(0.1, 0.3)), 1.0)
        new = value + step if direction == "up" else value - step
        new = float(round(new))
        if new <= 0 and DURATION_UNITS[unit][0] is not None and (item.digits or item.article):
            smaller, factor = DURATION_UNITS[unit]
            small = value * factor
            step = max(small * float(rng.uniform(0.1, 0.3)), 1.0)
            new, unit = float(round(small - step)), smaller
    if new != int(new):
        smaller, factor = DURATION_UNITS[unit]
        if smaller is None or new * factor != int(new * factor):
            return None
        new, unit = new * factor, smaller
    if new <= 0 or (new == value and unit == item.unit):
        return None
    return new, unit


# Durations in a sentence that speaks of its subject's length ("is over an hour long", "runs 126
# minutes"), which the table's running time or length gives; not of a part of it (a song).
_LENGTH_LEMMAS = word_set("probes/words/length_lemmas.txt")
_PART_WORDS = word_set("probes/words/part_words.txt")
_DURATION_KEY = re.compile(r"^(?:running time|run ?time|length|duration|playing time|total length)$", re.IGNORECASE)
_CELL_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?\.?|hours?|hrs?)\b", re.IGNORECASE)


def table_duration(doc, table) -> tuple[float, dict] | None:
    """The length the table gives its subject, in seconds, and the cell: the one row keyed
    Running time, Length or Duration with one value, "125 minutes", "46:06", "1 minute and 9
    seconds"; None when there is none, or the sentence is not about the subject's length (no
    length word, or a part word: "a song of 5 minutes")."""
    lemmas = {t.lemma_.lower() for t in doc} | {t.lower_ for t in doc}
    if not lemmas & _LENGTH_LEMMAS or lemmas & _PART_WORDS:
        return None
    rows = [row for row in table.rows if _DURATION_KEY.match(" ".join(row.key.split()))]
    if len(rows) != 1 or len(rows[0].values) != 1:
        return None
    value = rows[0].values[0].strip()
    clock = re.fullmatch(r"(\d{1,3}\s*:\s*\d{2}(?:\s*:\s*\d{2})?)", value)
    if clock:
        number = Number.parse(re.sub(r"\s+", "", clock.group(1)))
        seconds = number.value if number is not None else None
    else:
        parts = _CELL_PART.findall(value)
        rest = _CELL_PART.sub(" ", value)
        if not parts or re.search(r"\d", rest):
            return None  # another number beside the duration: which one is the length is unclear
        seconds = 0.0
        for amount, unit in parts:
            seconds += float(amount) * _SECONDS[_UNIT_FORMS.get(unit.lower().rstrip("."), unit.lower().rstrip("s."))]
    if not seconds:
        return None
    return seconds, {"key": rows[0].key, "value": value}


def _close(a: float, b: float, unit: str) -> bool:
    """Whether a sentence's amount in `unit` may be read as the table's (rounded to the unit)."""
    return abs(a - b) < _SECONDS[unit]


def monotone_duration_edit(
    text: str, item: Duration, label: str, flip: bool, rng: np.random.Generator, doc, table
) -> tuple[str, dict] | None:
    """Move a duration under a monotone word the way that keeps (`flip=False`) or flips the E/C
    label, by Table 2's rules (as monotone_edit for numbers). Where the table gives the
    subject's length (table_duration) the new label is checked against it: an edit it
    contradicts is None, one it confirms is `checked`; an unchecked flip is `heuristic`."""
    keeps_entail = DURATION_WORDS[item.word]
    keeps_label = keeps_entail if label == "E" else opposite(keeps_entail)
    direction = opposite(keeps_label) if flip else keeps_label
    moved = moved_duration(item, direction, large=flip, rng=rng)
    if moved is None:
        return None
    new, unit = moved
    edit = change(text, item.start, item.end, write_duration(item, new, unit, doc[item.token + 1].text))
    provenance: dict[str, Any] = {
        "rule": "duration_monotonicity",
        "function_word": item.word,
        "direction": direction,
        "word_from_paper_table2": item.word in PAPER_TABLE2,
        "changes": [edit],
    }
    checked = table_duration(doc, table) if item.seconds is not None else None
    if checked is not None:
        value, cell = checked
        expected = FLIPPED[label] if flip else label
        if claim_holds(item.word, value, item.seconds) != (label == "E"):
            return None  # the table's length does not give the gold label: not the one compared
        if claim_holds(item.word, value, new * _SECONDS[unit]) != (expected == "E"):
            return None
        provenance["checked"] = cell
    elif flip:
        provenance["heuristic"] = "half/twice"
    return apply_changes(text, [edit]), provenance


def bare_duration_edit(
    text: str, item: Duration, label: str, flip: bool, rng: np.random.Generator, doc, table
) -> tuple[str, dict] | None:
    """Another amount for a bare duration ("a length of 46 minutes"; paper Table 3: "46 minutes"
    -> "56 minutes", ENTAIL -> CONTRADICT). Where the table gives the subject's length
    (table_duration), checked against it: an ENTAIL amount that is the table's moves 20-50% away
    (CONTRADICT, `flip`); a CONTRADICT amount that is not the table's moves 20-50% further from it
    (CONTRADICT kept). Without that length only the flip is made, by half/twice, as a
    `heuristic`; a CONTRADICT amount may then land on the truth, so it is left alone."""
    checked = table_duration(doc, table) if item.seconds is not None else None
    if checked is None:
        if not flip or label != "E":
            return None
        # twice where half is no whole number: "21 years old" is not "126 months old"
        halves = item.value % 2 == 0 or item.article
        moved = moved_duration(item, "up" if rng.random() < 0.5 or not halves else "down", large=True, rng=rng)
        provenance: dict[str, Any] = {"rule": "duration_changed", "heuristic": "half/twice"}
    else:
        value, cell = checked
        is_the_tables = _close(item.seconds, value, item.unit)
        if flip != is_the_tables or flip != (label == "E"):
            return None  # an ENTAIL amount that is not the table's length, or a CONTRADICT one that is
        if flip:
            direction = "up" if rng.random() < 0.5 else "down"
        else:
            direction = "up" if item.seconds > value else "down"
        amount, unit = item.value, item.unit
        if amount < 5 and DURATION_UNITS[unit][0] in _SECONDS:
            amount, unit = amount * DURATION_UNITS[unit][1], DURATION_UNITS[unit][0]  # 2 hours: 120 minutes
        step = float(rng.uniform(0.2, 0.5)) * amount
        new = float(round(amount + step if direction == "up" else amount - step))
        if new <= 0:
            return None
        moved = (new, unit)
        new_seconds = new * _SECONDS[unit]
        if _close(new_seconds, value, item.unit) or abs(new_seconds - value) < 0.1 * value:
            return None  # too near the table's length to be read as false
        provenance = {"rule": "duration_changed", "direction": direction, "checked": cell}
    if moved is None:
        return None
    new, unit = moved
    edit = change(text, item.start, item.end, write_duration(item, new, unit, doc[item.token + 1].text))
    provenance["changes"] = [edit]
    return apply_changes(text, [edit]), provenance


def duration_probe(example, table, doc, ctx, flip: bool) -> list:
    """The duration edits of the hypothesis that keep (`flip=False`) or flip its label, one per
    duration: monotone ones under a comparative the number probes do not read (a number in
    words, "longer than"), and bare amounts (bare_duration_edit)."""
    from .base import NotApplicable, ProbeExample

    if is_negated(doc):
        raise NotApplicable("negated sentence (monotonicity reverses)")
    if quantified_subject(doc):
        raise NotApplicable("a quantified or counted subject (monotonicity is not the predicate's)")
    read_as_numbers = {m.token for m in monotone_numbers(doc)}
    items = [d for d in durations(doc) if d.token not in read_as_numbers]
    if not items:
        raise NotApplicable("no duration the number probes do not already move")
    out = []
    for item in items:
        edit = monotone_duration_edit if item.word else bare_duration_edit
        edited = edit(example.hypothesis, item, example.label, flip, ctx.rng, doc, table)
        if edited:
            expected = FLIPPED[example.label] if flip else example.label
            out.append(ProbeExample(edited[0], table, expected, edited[1]))
    if not out:
        raise NotApplicable("no duration that can move that way")
    return out


# ---------------------------------------------------------------- relations named by a sentence

# Words that name the relation of a key without its own words ("signed to RCA" names Labels,
# "married" names Spouse), by a word of the key; shared by entity_preserve (which relation the
# sentence claims of a name) and temporal_preserve (which row dates the event it names).
RELATION_CUES: dict[str, str] = word_map("probes/words/relation_cues.txt")


@cache
def _cues_by_stem() -> dict[str, frozenset[str]]:
    from .table_edits import stem

    return {stem(word): frozenset(cues.split()) for word, cues in RELATION_CUES.items()}


def relation_words(doc, key: str) -> list:
    """The tokens of the sentence that name the relation of a row keyed `key`: one of the key's
    words (crudely stemmed, as a word or its lemma: "produced" names Producer) or a cue word for
    it (RELATION_CUES: "married" names Spouse)."""
    from .table_edits import key_words, stem

    stems = key_words(key)
    cues = frozenset().union(*(_cues_by_stem().get(s, frozenset()) for s in stems))
    return [t for t in doc if {stem(t.lower_), stem(t.lemma_.lower())} & stems or {t.lower_, t.lemma_.lower()} & cues]


def names_relation(doc, key: str) -> bool:
    """Whether the sentence names the relation of a row keyed `key` (relation_words)."""
    return bool(relation_words(doc, key))


# ---------------------------------------------------------------- dates

MONTHS = word_list("words/months.txt")
_MONTH_INDEX = {m.lower(): i for i, m in enumerate(MONTHS)}


SEASONS = frozenset({"spring", "summer", "autumn", "fall", "winter"})
# Words next to a date that put it into a range, a deadline or a list, where changing or widening
# it does not simply keep or flip the claim ("from 1981 to 1983", "succeeded by 24 December 1521",
# "married since 2017"; a comparison "more awards in 2015 than in 2008" is caught by "than").
_DATE_BEFORE = word_set("probes/words/date_before.txt")
_DATE_AFTER = word_set("probes/words/date_after.txt")


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


# The year "present" stands for in a table's ranges ("1999–present"): InfoTabS's infoboxes were
# taken from Wikipedia in 2019-2020.
PRESENT_YEAR = 2020
_TABLE_YEAR = re.compile(r"(?<![\d.,])(1[0-9]{3}|20[0-9]{2})(?![\d])")
# "1989–present", "1995 (1995)-present", "1939–45"; not an ISO date's "2008-12-01"
_TABLE_RANGE = re.compile(
    r"(?<![\d.,])(1[0-9]{3}|20[0-9]{2})(?:\s*\(\d{4}\))?(?:\s*(?:–|-|—|to|until)\s*)"
    r"(1[0-9]{3}|20[0-9]{2}|[0-9]{2}(?![\d]|-\d)|present|current|now|today)",
    re.IGNORECASE,
)
_TABLE_DECADE = re.compile(r"(?<![\d])(1[0-9]{2}|20[0-9])0['’]?s\b")
# Words that tie a date to another time, an age or a state that lasts: with another year such a
# sentence may become true ("was still alive in 1990", "was a teenager in 1985", "won it two years
# after his debut in 1990", "was married in 1990").
RELATIVE_TIME = word_set("probes/words/relative_time.txt")


def table_years(table) -> tuple[set[int], list[tuple[int, int]]]:
    """The calendar years the table names (title, keys and values), and the spans its ranges and
    decades cover ("1989–present", "1939–45", "the 1990s"), "present" read as PRESENT_YEAR; a
    range's ends are among the years."""
    years, spans = set(), []
    for text in [table.title, *(row.key for row in table.rows), *(v for row in table.rows for v in row.values)]:
        years.update(int(y) for y in _TABLE_YEAR.findall(text))
        for start, end in _TABLE_RANGE.findall(text):
            first = int(start)
            if end.isdigit():
                last = int(end) if len(end) == 4 else first // 100 * 100 + int(end)
            else:
                last = PRESENT_YEAR
            if last >= first:
                spans.append((first, last))
                years.update((first, last))
        for decade in _TABLE_DECADE.findall(text):
            spans.append((int(decade) * 10, int(decade) * 10 + 9))
    return years, spans


def pinned_years(doc, table) -> set[int]:
    """The years of the rows whose relation the sentence names ("born", "released") and that
    hold a date with one calendar year: a one-off event the table dates ("Released: 14 April
    1980"), not a quantity dated by a year ("Students: 34,262 (2018)")."""
    found = set()
    for row in table.rows:
        years = {int(y) for value in row.values for y in _TABLE_YEAR.findall(value)}
        others = [
            n
            for value in row.values
            for n in re.findall(r"\d[\d,.]*", _TABLE_YEAR.sub(" ", value))
            if not n.isdigit() or int(n) > 31
        ]
        if len(years) == 1 and not others and names_relation(doc, row.key):
            found |= years
    return found


def year_kept_false(text: str, entity, table, rng: np.random.Generator) -> tuple[str, dict] | None:
    """Another year for the one year of a date in a CONTRADICT hypothesis that keeps it false
    (paper Table 3: "released towards the end of 1979" -> "of 1989"): 1 to 10 years away, never
    a year the table names or a range of it covers, on the same side of every other year the
    table names (no crossing of a birth, a death, a founding: "won an award in 2005" of a man
    who died in 2000 stays after 2000), within 1 year of none of them under a season, and not
    after PRESENT_YEAR. A year the table names is changed only where the sentence names the
    relation of a row dating a one-off event (pinned_years: "released in the summer of 1980" of
    an album released in April 1980): else the claim may be false within that year ("recorded in
    June 2001" of an album released in February 2001), and true or unknown in another. None when
    no year is left, or for a winter (it runs into the next year)."""
    found = [t for t in entity if is_year(t.text)]
    if len(found) != 1 or any(t.lower_ == "winter" for t in entity):
        return None
    token, year = found[0], int(found[0].text)
    marks, spans = table_years(table)
    pinned = pinned_years(entity.doc, table)
    if year in marks and not pinned:
        return None
    season = any(t.lower_ in SEASONS for t in entity)

    def allowed(new: int) -> bool:
        if new == year or not 1000 <= new <= max(PRESENT_YEAR, year) or new in marks:
            return False
        if any(first <= new <= last for first, last in spans):
            return False
        if season and any(abs(new - mark) <= 1 for mark in marks):
            return False
        return all((new > mark) == (year > mark) for mark in marks if mark != year)

    options = [year + step for step in range(-10, 11) if allowed(year + step)]
    if not options:
        return None
    new = options[int(rng.integers(len(options)))]
    edit = change(text, token.idx, token.idx + len(token.text), str(new))
    below = [m for m in marks if m < min(year, new)]
    above = [m for m in marks if m > max(year, new)]
    return apply_changes(text, [edit]), {
        "rule": "year_changed_kept_false",
        "changes": [edit],
        # the table's nearest years on either side, which the new year does not cross, and the
        # year of the event the sentence names, where the table dates it
        "between": [max(below) if below else None, min(above) if above else None],
        "event_year": sorted(pinned),
    }


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
OTHER_NEGATIONS = word_set("probes/words/other_negations.txt")
# "only has one language" negated is "does not only have one": the scope changes, the label
# does not simply flip.
FOCUS_WORDS = frozenset({"only", "just", "merely", "solely"})
# Adverbs under which "not" does not negate the claim: "barely made a profit" -> "barely did not
# make" says something else; "also won" -> "did not also win" keeps a presupposition.
HEDGES = word_set("probes/words/hedges.txt")
# Words that need a negation to be English: removing "not" from "does not have any" leaves
# "does have any" (negative-polarity items).
POLARITY_ITEMS = word_set("probes/words/polarity_items.txt")
# Determiners and quantifiers of a subject under which negating the verb does not negate the
# sentence: "Some nations do not send ...", "All drinks are not sugar free".
QUANTIFYING = word_set("probes/words/quantifying.txt")
_MODALS = word_set("probes/words/auxiliaries.txt")
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
# Verbs whose past tense is their base form ("put", "cut"): the only VBD forms equal to a lemma.
_SAME_PAST = word_set("probes/words/same_past.txt")
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
QUANTIFIER_COMPLEMENTS: dict[str, str] = word_map("probes/words/quantifier_complements.txt")
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


# Determiners that quantify ("most people", "many awards", "every issue", "all of the songs";
# paper section 4: "Quantifiers: like most, many, every"), and how each is replaced. Ordered by
# strength for a non-empty set: all > most > some, many > several > multiple (two or more), so a
# weaker one keeps ENTAIL true and a stronger one keeps CONTRADICT false; "every" and "each" say
# the same. Only all/most/some are strengthened: "several years" may be false for being too few
# or too many ("married for several years" of a marriage of thirty), "many years" then true.
# Forms: "det" before a plural (for every/each, singular) noun, "of" before "of", "predet"
# before "the"/"his".
QUANTIFIER_DETERMINERS = frozenset({"all", "most", "many", "several", "some", "every", "each"})
WEAKER: dict[tuple[str, str], str] = {
    ("all", "det"): "most",
    ("all", "of"): "most",
    ("all", "predet"): "most of",  # "all the songs" -> "most of the songs"
    ("most", "det"): "some",
    ("most", "of"): "some",
    ("many", "det"): "multiple",
    ("many", "of"): "some",
    ("several", "det"): "multiple",
    ("several", "of"): "some",
}
STRONGER: dict[tuple[str, str], str] = {
    ("some", "det"): "all",
    ("some", "of"): "all",
    ("most", "det"): "all",
    ("most", "of"): "all",
}
SAME_MEANING: dict[tuple[str, str], str] = {("every", "det"): "each", ("each", "det"): "every"}
# Words before a quantifier that make it something else: a superlative ("the most"), a
# comparison ("as many", "twice as many", "how many"), a bound ("at most"), an approximation
# ("almost all"), a negation ("not all").
_NOT_A_QUANTIFIER_BEFORE = APPROXIMATORS | word_set("probes/words/not_quantifier_before.txt")
# ... and after it: "many more", "most likely", "all but", "each other", "every other".
_NOT_A_QUANTIFIER_AFTER = word_set("probes/words/not_quantifier_after.txt")
# Sentences where replacing a quantifier does not simply weaken or strengthen the claim: a
# comparison, a condition, an exception, a question, a focus word.
_OPAQUE = word_set("probes/words/opaque.txt")
# Superlatives and rankings, under which a quantified phrase is no plain claim: "the largest city
# in all of Europe" is not "in most of Europe".
_RANKING = frozenset({"leading", "top", "first", "last", "best", "worst", "sole"})


@dataclass(frozen=True)
class Quantifier:
    token: int
    word: str  # lower case
    form: str  # "det", "of" or "predet"
    subject_initial: bool  # the first word of the sentence, quantifying its subject


def quantifiers(doc) -> list[Quantifier]:
    """The one quantifying determiner of the sentence (QUANTIFIER_DETERMINERS), if it is the
    only one, in a plain context: not negated, compared, conditional or focused (_OPAQUE), no
    superlative or ranking in the sentence (_RANKING), not itself a superlative, comparison or
    bound (_NOT_A_QUANTIFIER_*), and not "every"/"each" before a number ("every four years").
    Empty otherwise."""
    if is_negated(doc) or any(t.lower_ in _OPAQUE for t in doc):
        return []
    found = [t for t in doc if t.lower_ in QUANTIFIER_DETERMINERS]
    if len(found) != 1:
        return []
    token = found[0]
    if any((t.tag_ in ("JJS", "RBS") or t.lower_ in _RANKING) and t.i != token.i for t in doc):
        return []  # "the leading sire in all of North America" is not "in most of" it
    previous = doc[token.i - 1] if token.i > 0 else None
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if following is None or (previous is not None and previous.lower_ in _NOT_A_QUANTIFIER_BEFORE):
        return []
    if following.lower_ in _NOT_A_QUANTIFIER_AFTER or following.like_num:
        return []
    word = token.lower_
    if following.lower_ == "of" and token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj"):
        form = "of"
    elif token.dep_ == "predet" and following.lower_ in ("the", "his", "her", "its", "their", "these", "those"):
        form = "predet"
    elif token.dep_ in ("det", "amod") and token.head.pos_ in ("NOUN", "PROPN") and token.head.i > token.i:
        singular = token.head.tag_ in ("NN", "NNP")
        if singular != (word in ("every", "each")):
            return []  # "some person" is a certain one; "every issues" is no English
        form = "det"
    else:
        return []
    subjects = ("nsubj", "nsubjpass")
    return [Quantifier(token.i, word, form, token.i == 0 and (token.dep_ in subjects or token.head.dep_ in subjects))]


def _as_written(new: str, old) -> str:
    return new[0].upper() + new[1:] if old.text[:1].isupper() else new


def quantifier_preserving_edits(doc, label: str) -> list[tuple[str, dict]]:
    """The quantifier replaced by a weaker one for ENTAIL ("most people" -> "some people"), a
    stronger one for CONTRADICT ("most of his life" -> "all of his life"), or by one that says the
    same for both ("every issue" -> "each issue")."""
    text, out = doc.text, []
    for q in quantifiers(doc):
        token = doc[q.token]
        for table, rule in (
            (
                WEAKER if label == "E" else STRONGER,
                "quantifier_weakened" if label == "E" else "quantifier_strengthened",
            ),
            (SAME_MEANING, "quantifier_paraphrased"),
        ):
            new = table.get((q.word, q.form))
            if new is None:
                continue
            edit = change(text, token.idx, token.idx + len(token.text), _as_written(new, token))
            out.append(
                (
                    apply_changes(text, [edit]),
                    {"rule": rule, "quantifier": q.word, "replacement": new, "changes": [edit]},
                )
            )
    return out


def quantifier_flipping_edits(doc, label: str) -> list[tuple[str, dict]]:
    """A quantified subject negated by its contradictory, which flips ENTAIL and CONTRADICT by
    logic alone: "All/Every X ..." -> "Not all/Not every X ...", "Some X ..." -> "No X ..." ("Some
    of" -> "None of"). And, for ENTAIL only, "most"/"many" -> "few" ("won many awards" -> "won few
    awards"): a contrary on a vague scale, so a `heuristic` a person checks."""
    text, out = doc.text, []
    for q in quantifiers(doc):
        token = doc[q.token]
        span = (token.idx, token.idx + len(token.text))
        provenance: dict[str, Any] = {"quantifier": q.word}
        if q.subject_initial and q.word in ("all", "every") and q.form in ("det", "predet", "of"):
            new, provenance["rule"] = f"Not {token.lower_}", "quantifier_negated"
        elif q.subject_initial and q.word == "some" and q.form in ("det", "of"):
            new, provenance["rule"] = ("No" if q.form == "det" else "None"), "quantifier_complement"
        elif label == "E" and q.word in ("most", "many") and q.form == "det":
            new = _as_written("few", token)
            provenance.update(rule="quantifier_contrary", heuristic="most/many -> few")
        else:
            continue
        edit = change(text, *span, new)
        out.append((apply_changes(text, [edit]), {**provenance, "replacement": new, "changes": [edit]}))
    return out
