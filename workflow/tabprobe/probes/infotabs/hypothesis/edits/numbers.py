"""Numbers under monotone function words (paper Table 2: "over", "more than", "before" ...),
moved the way that keeps or flips the label, and checked against the table's quantity where it
has the one the number is compared with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabprobe.probes.infotabs.hypothesis.edits.reading import (
    FLIPPED,
    comparative_in_context,
    is_calendar_year,
    is_negated,
    is_year,
    quantified_subject,
)
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_map

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
# The monotone words of numbers (paper Table 2 and synonyms) and the comparatives of durations.
DURATION_WORDS: dict[str, str] = {**MONOTONE_WORDS, "longer than": "down", "shorter than": "up"}


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
    from tabprobe.probes.infotabs.number_edits import quantity_cells
    from tabprobe.probes.infotabs.table_edits import key_words, stem

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


def monotone_number_probe(example, table, doc, ctx, temporal: bool, flip: bool) -> list:
    """All monotone edits of the hypothesis's numbers (years when `temporal`), one per number."""
    from tabprobe.probes.base import NotApplicable, ProbeExample

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
