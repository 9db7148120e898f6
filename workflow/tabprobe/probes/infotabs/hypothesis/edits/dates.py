"""Dates in a hypothesis (paper section 4, Table 3): made less precise, a year or a month moved,
or a year changed so that a false claim stays false against the years the table names.
"""

from __future__ import annotations

import re

import numpy as np

from tabprobe.probes.infotabs.hypothesis.edits.numbers import monotone_numbers
from tabprobe.probes.infotabs.hypothesis.edits.reading import TIME_UNITS, is_calendar_year, is_year
from tabprobe.probes.infotabs.hypothesis.edits.relations import names_relation
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_list, word_set

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
