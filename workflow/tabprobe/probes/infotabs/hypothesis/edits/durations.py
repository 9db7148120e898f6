"""Amounts of time in a hypothesis ("46 minutes", "over an hour", "two decades"): moved under a
monotone word or a comparative of length, or changed where bare, checked against the length the
table gives its subject where it gives one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabprobe.probes.infotabs.hypothesis.edits.numbers import (
    DURATION_WORDS,
    PAPER_TABLE2,
    TEMPORAL_WORDS,
    Number,
    claim_holds,
    monotone_numbers,
    opposite,
)
from tabprobe.probes.infotabs.hypothesis.edits.reading import (
    APPROXIMATORS,
    FLIPPED,
    comparative_in_context,
    is_negated,
    quantified_subject,
)
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_set

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
    from tabprobe.probes.base import NotApplicable, ProbeExample

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
