"""What the TabFact program executor (programs.py) makes of a cell or a literal: numbers, dates, time spans
and the fuzzy string match, and the comparisons built from them.

TabFact cells are lower-cased, tokenised text (`1370 lb (635 kg)`, `3 - 1`, `october 5 , 2003`, `$ 1,000`,
`21 -`), and a program's literals are what an annotator typed (`december 31, 1991`, `-1 year`, `12.00`). The
rules below decide when two of them are the same thing and which of two is larger. Each one is small and
says which programs of the bootstrap set (../shared/tabfact/bootstrap) need it. Everything is a pure function.
"""

from __future__ import annotations

import datetime
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_YEAR = r"(?P<year>1[0-9]{3}|20[0-9]{2})"
_DAY = r"(?P<day>[0-3]?[0-9])(?:st|nd|rd|th)?"
# Written dates seen in the tables and programs: `october 5 , 2003`, `5 october 2003`, `september 13`,
# `may 2005`, `23 - 03 - 2003`, `2003 - 10 - 05`, `10/5/2003`. A weekday in front (`sunday september 20`)
# is left to the search, which does not anchor at the start.
_DATE_PATTERNS = tuple(
    re.compile(pattern)
    for pattern in (
        rf"\b{_MONTH}\s*{_DAY}\b(?:\s*,?\s*{_YEAR}\b)?",
        rf"\b{_DAY}\s+{_MONTH}(?:\s*,?\s*{_YEAR}\b)?",
        rf"\b{_MONTH}\s*,?\s*{_YEAR}\b",
        r"\b(?P<year>1[0-9]{3}|20[0-9]{2})\s*[-/]\s*(?P<month>[01]?[0-9])\s*[-/]\s*(?P<day>[0-3]?[0-9])\b",
        r"\b(?P<day>[0-3]?[0-9])\s*[-/.]\s*(?P<month>[01]?[0-9])\s*[-/.]\s*(?P<year>1[0-9]{3}|20[0-9]{2})\b",
    )
)
# `1:23.4` (a lap), `2:20.22`, `1:02:03`: clock times and durations, read as seconds so that they order.
_CLOCK = re.compile(r"(?<![\d.])(\d+):([0-5]\d(?:\.\d+)?)(?::([0-5]\d(?:\.\d+)?))?")
# A leading sign counts only when it touches the digits: in `21 -` or `- 3` the dash is a missing score
# or a tokenised range, not a minus. Thousands commas only in groups of three (`1,000`), because the
# tokeniser also writes `1 , 2` for a list.
_NUMBER = re.compile(r"(?<![\w.])([-+−]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?|(?<![\w\d])([-+−]?)\.(\d+)")
# Digits and letters split (`100m` is `100 m`, `15420khz (sw)` is `15420 khz (sw)`): the tables write a number
# and its unit both ways (`filter_less{all_rows; position; 100m}` over `100 m`).
# A sign that opens the cell counts even when the tokeniser put a space after it: golf's `- 3` to par, a
# goal difference `+ 105` (but not the dash inside the score `3 - 1`).
_LEADING_SIGN = re.compile(r"^\s*[-+−]\s*$")
_TOKEN = re.compile(r"\d+|[^\W\d_]+|_|[^\w\s]")
_INFLECTION = ("s", "es", "d", "ed", "ing")
_UNIT = re.compile(r"\b(day|week|month|year)s?\b")


@dataclass(frozen=True)
class Date:
    """A calendar date; year and day may be unknown (`september 13`, `may 2005`)."""

    year: int | None
    month: int
    day: int | None


@dataclass(frozen=True)
class DateSpan:
    """diff of two dates: how far apart they are in whole years, months and days (days when both days are
    known). Programs compare it with `-1 year`, `-7 days` or a bare number (`-7`, meaning days or years)."""

    years: int | None
    months: int
    days: int | None


class Missing:
    """The value of hop on an empty row set: what a program reads about a record that is not there. Every
    comparison with it is False, so a statement about a deleted record is refuted (TabFact's closed world)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()
Value = str | int | float | Date | DateSpan | Missing


class TextOrdering(ValueError):
    """An ordering (greater, argmax, filter_less, ...) asked of two texts with no number or date in them.
    Alphabetical order is no claim a statement makes (`lp` is not more than `cd`), so the program cannot
    be run soundly; programs.py reports it as an UnsoundProgramError."""

    def __init__(self, left: object, right: object) -> None:
        super().__init__(f"{left!r} and {right!r}")
        self.texts = (left, right)


def tokens(text: str) -> tuple[str, ...]:
    """Words, numbers and punctuation marks, so that `december 31, 1991` and `december 31 , 1991` (the
    tokenised cell) compare equal and `runner-up` matches `runner - up`. Accents are dropped because
    annotators often typed names without them (`juan cruz alvarez` for `juan cruz álvarez`)."""
    folded = unicodedata.normalize("NFKD", text.lower().replace("−", "-"))
    return tuple(_TOKEN.findall("".join(char for char in folded if not unicodedata.combining(char))))


def _words(found: Sequence[str]) -> tuple[str, ...]:
    return tuple(token for token in found if token[0].isalnum())


def parse_number(text: str) -> float | None:
    """The first number in a cell or literal (`1370 lb (635 kg)` -> 1370, `$ 1,000` -> 1000, `12.5%` ->
    12.5, `3 - 1` -> 3); a clock time counts in seconds (`1:23.4` -> 83.4). None when there is none."""
    clock = _CLOCK.search(text)
    number = _NUMBER.search(text)
    if clock and (number is None or clock.start() <= number.start()):
        hours_or_minutes, minutes_or_seconds, seconds = clock.groups()
        if seconds is None:
            return int(hours_or_minutes) * 60 + float(minutes_or_seconds)
        return int(hours_or_minutes) * 3600 + int(minutes_or_seconds) * 60 + float(seconds)
    if number is None:
        return None
    if number.group(2) is None:  # the `.5` alternative
        sign, whole, fraction = number.group(4), "0", "." + number.group(5)
    else:
        sign, whole, fraction = number.group(1), number.group(2), number.group(3) or ""
    value = float(whole.replace(",", "") + fraction)
    if not sign and _LEADING_SIGN.match(text[: number.start()]):
        sign = text.strip()[0]
    return -value if sign in ("-", "−") else value


def decimals(text: str) -> int:
    """How many decimals the number parse_number reads from a literal gives (`238.05` -> 2, `68` -> 0, the
    lap `1:00.26` -> 2, from its seconds): the precision a statement states, at which eq compares a number
    (numbers_at_precision)."""
    clock = _CLOCK.search(text)
    number = _NUMBER.search(text)
    if clock and (number is None or clock.start() <= number.start()):
        last = clock.group(3) or clock.group(2)
        fraction = last.partition(".")[2]
        return len(fraction)
    if number is None:
        return 0
    fraction = number.group(3) or ("." + number.group(5) if number.group(5) else "")
    return max(len(fraction) - 1, 0)


def is_plain_number(text: str) -> bool:
    """Whether a text is a number and little else (`1000`, `$ 4,014`, `12.5 %`, `-15`): only then may it
    equal a cell by value, so that `2` does not equal the score `2 - 0`."""
    rest = _NUMBER.sub("", text, count=1)
    return parse_number(text) is not None and not re.search(r"\w", rest.replace("%", ""))


def parse_date(text: str) -> Date | None:
    """The first written date in a text, or None. A bare year is not a date (it is a number)."""
    for pattern in _DATE_PATTERNS:
        match = pattern.search(text.lower())
        if match is None:
            continue
        fields = match.groupdict()
        month_text = fields["month"]
        month = MONTHS[month_text] if month_text in MONTHS else int(month_text)
        day = int(fields["day"]) if fields.get("day") else None
        if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
            return Date(int(fields["year"]) if fields.get("year") else None, month, day)
    return None


def _year_only(text: str) -> int | None:
    """A literal that is just a year (`2000`): compared with a date cell's year (`all_greater{all_rows;
    date; 2000}` over `october 5 , 2003`)."""
    stripped = text.strip()
    return int(stripped) if re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", stripped) else None


def date_order_key(date: Date, with_year: bool) -> tuple[int, ...]:
    """Dates order by year, month, day; without the year when either side lacks it (`september 13`)."""
    head = (date.year or 0,) if with_year else ()
    return (*head, date.month, date.day or 0)


def _as_text(value: Value) -> str | None:
    return value if isinstance(value, str) else None


def comparable_pair(left: Value, right: Value) -> tuple[object, object] | None:
    """Two values as keys that order them: dates when both are dates (or one a date and the other a bare
    year), else numbers when both have one. None when they cannot be compared (a missing record, a date
    span, only one side with a number, or two texts: see ordered_pair)."""
    if isinstance(left, Missing | DateSpan) or isinstance(right, Missing | DateSpan):
        return None
    left_date = left if isinstance(left, Date) else parse_date(left) if isinstance(left, str) else None
    right_date = right if isinstance(right, Date) else parse_date(right) if isinstance(right, str) else None
    if left_date and right_date:
        with_year = left_date.year is not None and right_date.year is not None
        return date_order_key(left_date, with_year), date_order_key(right_date, with_year)
    for date, other in ((left_date, right), (right_date, left)):
        year = _year_only(other) if isinstance(other, str) else None
        if date is not None and date.year is not None and year is not None:
            return (date.year, year) if date is left_date else (year, date.year)
    left_number = parse_number(left) if isinstance(left, str) else left
    right_number = parse_number(right) if isinstance(right, str) else right
    if isinstance(left_number, int | float) and isinstance(right_number, int | float):
        return left_number, right_number
    return None  # a number against a cell without one (`-`, `n/a`): no data, neither larger nor smaller


def _is_text(value: Value) -> bool:
    """Words without a number (`lp`, `point guard`); `-` and empty cells are no data, not text."""
    return isinstance(value, str) and bool(re.search(r"[^\W\d_]", value)) and parse_number(value) is None


def _has_quantity(value: Value) -> bool:
    """A number, a date or a date span: something with an order."""
    if isinstance(value, str):
        return parse_number(value) is not None or parse_date(value) is not None
    return isinstance(value, int | float | Date | DateSpan)


def ordered_pair(left: Value, right: Value) -> tuple[object, object] | None:
    """comparable_pair for an ordering. TextOrdering when neither side has a number or a date and one is
    text (`lp` against `cd`, the position `c` against the no-data `-`): the program orders text, which has
    no order a statement means. A number against text stays no data (`30` against `dnf`: not larger)."""
    pair = comparable_pair(left, right)
    if pair is None and (_is_text(left) or _is_text(right)) and not (_has_quantity(left) or _has_quantity(right)):
        raise TextOrdering(left, right)
    return pair


def greater(left: Value, right: Value) -> bool:
    pair = ordered_pair(left, right)
    return pair is not None and pair[0] > pair[1]


def less(left: Value, right: Value) -> bool:
    pair = ordered_pair(left, right)
    return pair is not None and pair[0] < pair[1]


def _word_matches(cell_word: str, literal_word: str) -> bool:
    """A literal's word names a cell's word when it is the same, the cell's is the same with an inflection
    (`retire` for `retired`, `win` for `wins`), or the literal is a decade's stem and the cell a year in it
    (`196` for `1961`: `eq{count{filter_eq{all_rows; first elected; 196}}; 2}` counts the sixties)."""
    if cell_word == literal_word:
        return True
    if literal_word.isdigit():
        return (
            len(literal_word) == 3
            and len(cell_word) == 4
            and cell_word.isdigit()
            and cell_word.startswith(literal_word)
        )
    return len(literal_word) >= 3 and any(cell_word == literal_word + ending for ending in _INFLECTION)


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Whether needle's tokens name a run of haystack's tokens, word by word (see _word_matches)."""
    width = len(needle)
    return width > 0 and any(
        all(_word_matches(cell, literal) for cell, literal in zip(haystack[start : start + width], needle))
        for start in range(len(haystack) - width + 1)
    )


def _text_contains(cell: str, literal: str) -> bool:
    """The literal's tokens are a run of the cell's, with or without the punctuation (`re elected` names
    `re - elected`, `paper, online` does not name `paper (1882 - ) online`)."""
    cell_tokens, literal_tokens = tokens(cell), tokens(literal)
    return _contains(cell_tokens, literal_tokens) or _contains(_words(cell_tokens), _words(literal_tokens))


def numbers_at_precision(number: float, stated: float, places: int) -> bool:
    """Whether `number` written with `places` decimals is `stated`: rounded half away from zero or cut off
    there (annotators write an average both ways: `4.17` or `4.16` for 4.1666, `13916` for 13916.67), and
    no closer than that. A stated `16013` is not 16012.46, nor `3` 2.375, nor the lap `1:00.26` 1:00.23."""
    scale = 10**places
    wanted = round(abs(stated) * scale)
    scaled = abs(number) * scale
    scaled += 1e-9 * max(1.0, scaled)  # 2.375 * 100 is 237.49999999999997 in floating point
    same_sign = wanted == 0 or (number < 0) == (stated < 0)
    return same_sign and wanted in (math.floor(scaled), math.floor(scaled + 0.5))


def _numbers_equal(computed: float, literal: str | float) -> bool:
    """Whether a computed number (or a cell's) equals a literal, at the precision the literal states; two
    computed numbers must agree to within float noise."""
    if isinstance(literal, str):
        target = parse_number(literal)
        if target is None:
            return False
        if float(computed).is_integer():  # a count or a sum of whole numbers: exactly
            return computed == target
        return numbers_at_precision(computed, target, decimals(literal))
    return math.isclose(computed, literal, rel_tol=1e-9, abs_tol=1e-9)


def _span_equal(span: DateSpan, literal: str) -> bool:
    """`-1 year` compares years, `-7 days` days (and weeks), `3 months` months; a bare number may mean
    either days or years (`eq{diff{...original air date...}; -7}`, `eq{diff{...founded...}; -13}`)."""
    number = parse_number(literal)
    if number is None:
        return False
    unit = _UNIT.search(literal.lower())
    unit_name = unit.group(1) if unit else None
    candidates = {
        "year": [span.years],
        "month": [span.months],
        "day": [span.days],
        "week": [None if span.days is None else span.days / 7],
        None: [span.years, span.days],
    }[unit_name]
    return any(candidate is not None and math.isclose(candidate, number) for candidate in candidates)


def values_equal(left: Value, right: Value) -> bool:
    """eq and filter_eq: the same number (a computed one or a cell's at the precision the literal states, or
    a cell whose number equals a plain-number literal: `$ 4,014` and `4014`), the same date (`27 october
    2010` and `october 27 , 2010`), or one text's tokens a run of the other's (`pepsi center` in `pepsi
    center 18611`, `w` in `w 107 - 92 (ot)`), because annotators name a cell by a part of it.

    `right` is the stated side: the grammar writes a literal second (all 1,285 comparisons of a computed
    value with a literal in the bootstrap programs, and every filter's value)."""
    if isinstance(left, Missing) or isinstance(right, Missing):
        return False
    if isinstance(left, DateSpan) or isinstance(right, DateSpan):
        span, other = (left, right) if isinstance(left, DateSpan) else (right, left)
        return isinstance(other, str) and _span_equal(span, other)
    if isinstance(left, int | float) or isinstance(right, int | float):
        number, other = (left, right) if isinstance(left, int | float) else (right, left)
        return isinstance(other, str | int | float) and _numbers_equal(number, other)
    left_text, right_text = _as_text(left), _as_text(right)
    if left_text is None or right_text is None:
        return left == right
    if is_plain_number(left_text) and is_plain_number(right_text) and (decimals(left_text) or decimals(right_text)):
        # Numbers with decimals compare as numbers only: the tokens of `2` are a run of those of `2.4`. (Whole
        # numbers keep the token match, for a decade's stem: `196` names 1961.)
        return _numbers_equal(parse_number(left_text), right_text)
    if _text_contains(left_text, right_text) or _text_contains(right_text, left_text):
        return True
    for plain, other in ((left_text, right_text), (right_text, left_text)):
        number = parse_number(other)
        if is_plain_number(plain) and number is not None and _numbers_equal(number, plain):
            return True
    left_date, right_date = parse_date(left_text), parse_date(right_text)
    if left_date and right_date:
        with_year = left_date.year is not None and right_date.year is not None
        return date_order_key(left_date, with_year) == date_order_key(right_date, with_year)
    return False


def strings_equal(left: Value, right: Value) -> bool:
    """str_eq: the whole texts, token for token (no part-of-a-cell match and no numbers)."""
    return isinstance(left, str) and isinstance(right, str) and tokens(left) == tokens(right)


def difference(left: Value, right: Value) -> Value:
    """diff: dates give a DateSpan (`-1 year`, `-7 days`), anything else with numbers their difference;
    MISSING when either side is missing or has no number."""
    left_date = parse_date(left) if isinstance(left, str) else None
    right_date = parse_date(right) if isinstance(right, str) else None
    if left_date and right_date:
        return date_span(left_date, right_date)
    pair = comparable_pair(left, right)
    if pair is None or not all(isinstance(side, int | float) for side in pair):
        return MISSING
    return pair[0] - pair[1]


def date_span(left: Date, right: Date) -> DateSpan:
    """How far left is after right. Days come from the calendar, in a leap year when the year is unknown,
    so that `february 29` still parses; years are None when either year is unknown."""
    years = None if left.year is None or right.year is None else left.year - right.year
    months = (years or 0) * 12 + left.month - right.month
    days = None
    if left.day is not None and right.day is not None:
        try:
            left_day = datetime.date(left.year or 2000, left.month, left.day)
            right_day = datetime.date(right.year or 2000, right.month, right.day)
            days = (left_day - right_day).days
        except ValueError:  # `february 30` in a cell
            days = None
    return DateSpan(years, months, days)


def number_of(value: Value) -> float | None:
    """The number an aggregate (sum, avg) takes from a cell, or None when the cell has none (`-`, `n/a`)."""
    if isinstance(value, int | float):
        return value
    return parse_number(value) if isinstance(value, str) else None


def ranking_keys(cells: Sequence[str], how: str | None = None) -> tuple[str, list[object | None]]:
    """How a column's cells order for argmax, max and their nth forms ("dates", "numbers", or "text" where
    at most one cell ranks), and their keys; None for a cell left out. `how` ("dates" or "numbers") ranks
    them so, whatever the column holds (the cells without a date or a number left out).

    A column ranks as dates when at least half its non-empty cells are dates, else as numbers when at least
    half have a number: a column of `october 5 , 2003` must not rank by the day's number, and a `-` among
    numbers (no data) is skipped. Dates rank without the year when any of them lacks it. Text has no order
    a statement means: TextOrdering when two cells of text would be ranked."""
    filled = [cell for cell in cells if cell.strip()]
    dates = [parse_date(cell) for cell in cells]
    if how == "dates" or how is None and filled and 2 * sum(date is not None for date in dates) >= len(filled):
        with_year = all(date.year is not None for date in dates if date is not None)
        return "dates", [None if date is None else date_order_key(date, with_year) for date in dates]
    numbers = [parse_number(cell) for cell in cells]
    if how == "numbers" or filled and 2 * sum(number is not None for number in numbers) >= len(filled):
        return "numbers", numbers
    texts = [cell for cell in cells if _is_text(cell)]
    if len(texts) > 1:
        raise TextOrdering(*texts[:2])
    if any(number is not None for number in numbers):  # the rest is `-` and the like: no data
        return "numbers", numbers
    return "text", [tokens(cell) if _is_text(cell) else None for cell in cells]
