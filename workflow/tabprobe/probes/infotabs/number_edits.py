"""Number rewrites shared by the numeric probes (numerical-qa-robustness section 4.2:
language, type and verbosity perturbations; distractor rows; templated comparatives as in
diversify-your-datasets section 3).

Numbers are whole integers written as digits ("3", "1,234"), never part of a decimal, a time
("46:06"), a range ("2007-2008"), a word ("4x4"), a decade ("1970's"), an amount glued to a
symbol ("$100", "50%"), a date's day ("June 21") or a name ("Atari 2600", "Despicable Me 3",
"#624"): only a quantity or a year may be rewritten. Each rewrite returns the new text and the
list of changes ({start, end, old, new}, offsets into the original) for provenance.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.shared.stop_words import is_stop_word
from tabprobe.probes.shared.text_edits import apply_changes, change

INTEGER = re.compile(r"(?<![\w.,:/–#$€£¥?-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w:/–%'’?-]|[.,]\d)")
MONTH_NAMES = re.compile(
    r"^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?$",
    re.IGNORECASE,
)


def integer_value(text: str) -> int:
    return int(text.replace(",", ""))


def is_year_like(text: str) -> bool:
    return "," not in text and 1000 <= int(text) <= 2099


def integers(text: str) -> list[re.Match]:
    return list(INTEGER.finditer(text))


IDENTIFIER_WORDS = frozenset(
    {
        "number",
        "numbered",
        "no",
        "brand",
        "branded",
        "coded",
        "code",
        "route",
        "track",
        "episode",
        "season",
        "chapter",
        "volume",
        "page",
        "room",
        "flight",
        "model",
        "version",
        "series",
        "article",
        "section",
        "channel",
        "highway",
        "interstate",
        "platform",
        "gate",
        "jersey",
        "pick",
        "rank",
        "ranked",
    }
)
_ADDRESS = re.compile(
    r"\s+(?:[A-Z][\w'’.-]*\s+){0,3}(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|"
    r"Drive|Way|Place|Square|Highway|Route)\b"
)


def quantities(text: str) -> list[re.Match]:
    """The integers of `text` that stand as numbers, not as a date's day or a part of a name: a
    month name next to it ("June 21", "21 June") or a capitalised word before it that is not a
    sentence's first function word ("Atari 2600", "Despicable Me 3"; "In 1990" is a number)."""
    out = []
    for m in integers(text):
        before = re.search(r"(\S+)\s+$", text[: m.start()])
        after = re.match(r"\s+(\S+)", text[m.end() :])
        word_before = before.group(1).strip("\"'(,") if before else ""
        word_after = after.group(1).strip("\"'),.;:") if after else ""
        if not is_year_like(m.group(0)) and (MONTH_NAMES.match(word_before) or MONTH_NAMES.match(word_after)):
            continue  # the day of a date ("June 21", "21 June"); its year is a number
        if word_before[:1].isupper() and not MONTH_NAMES.match(word_before):
            starts_sentence = not text[: before.start()].strip() or re.search(r"[.!?]\s*$", text[: before.start()])
            if not (starts_sentence and is_stop_word(word_before)):
                continue  # part of a name ("Atari 2600", "Despicable Me 3"); "In 1990" starts a sentence
        if _ADDRESS.match(text[m.end() :]):
            continue  # a house number ("221 Baker Street")
        if word_before.lower().strip(".") in IDENTIFIER_WORDS:
            continue  # "brand 644", "number 23", "route 66": it names, it does not count
        out.append(m)
    return out


def occurrences(text: str, digits: str) -> int:
    """How often `digits` occurs in `text` as a whole number, in any context ("1999" in
    "1999–present" too)."""
    return len(re.findall(r"(?<![\d,.])" + re.escape(digits) + r"(?![\d]|[.,]\d)", text))


def table_occurrences(table: Table, digits: str) -> int:
    return sum(occurrences(value, digits) for row in table.rows for value in row.values)


def rewritable_numbers(hypothesis: str, table: Table) -> set[str]:
    """The integers of the hypothesis that a rewrite may change in hypothesis and table alike:
    every occurrence in the hypothesis a quantity, none in the title (a name: "Despicable Me 3"),
    and every occurrence in the table one that `rewrite_table` reaches (not inside "1999–present"
    or "June 21"), so the evidence is never left in digits while the hypothesis is in words."""
    found = {m.group(0) for m in quantities(hypothesis)}
    keep = set()
    for digits in found:
        if occurrences(hypothesis, digits) != sum(1 for m in quantities(hypothesis) if m.group(0) == digits):
            continue
        if occurrences(table.title, digits) or any(occurrences(key, digits) for key in table.keys):
            continue  # in the title or a key: a name the rewrite must not touch, or evidence it cannot reach
        cells = [value for row in table.rows for value in row.values if occurrences(value, digits)]
        if any(len(integers(value)) >= 3 for value in cells):
            continue  # a cell of many numbers (card ranks "A K Q J 10 9 8"): a list, not a quantity
        reachable = sum(1 for value in cells for m in quantities(value) if m.group(0) == digits)
        if reachable == table_occurrences(table, digits):
            keep.add(digits)
    return keep


def rewrite_integers(text: str, rewrite: Callable[[str], str | None]) -> tuple[str, list[dict]]:
    """Apply `rewrite` to every integer of `text` that stands as a number (None leaves one alone)."""
    changes = []
    for m in quantities(text):
        new = rewrite(m.group(0))
        if new is not None and new != m.group(0):
            changes.append(change(text, m.start(), m.end(), new))
    return apply_changes(text, changes), changes


def rewrite_table(table: Table, rewrite: Callable[[str], str | None]) -> tuple[Table, list[dict]]:
    """Apply `rewrite` to every integer standing as a number (`quantities`) in every value of the
    table; returns the changed cells."""
    rows, cells = [], []
    for r, row in enumerate(table.rows):
        values = []
        for v, value in enumerate(row.values):
            new, changes = rewrite_integers(value, rewrite)
            if changes:
                cells.append({"row": r, "key": row.key, "value_index": v, "old": value, "new": new})
            values.append(new)
        rows.append(Row(row.key, tuple(values)))
    return table.with_rows(rows), cells


# A cell holding one number and, optionally, its unit in words: "125 minutes", "3", "1,234 km".
NUMERIC_CELL = re.compile(r"^\s*(\d{1,3}(?:,\d{3})+|\d+)(\s+[A-Za-z%](?:[A-Za-z%./ ]|(?<=[A-Za-z])\d\b)*)?\s*$")
# Keys whose numbers name or date something instead of counting or measuring it: "Number" (a
# jersey), "Area code", "Rank", "Season", "Established" ... ("No. of episodes" counts: allowed).
NOT_A_QUANTITY = re.compile(
    r"\b(?:number|no|code|id|rank(?:ing)?|jersey|track|isbn|issn|zip|postal|postcode|route|channel|frequency|"
    r"catalog(?:ue)?|model|serial|season|episode|chapter|volume|issue|pick|round|draft|position|seed|year|date|"
    r"born|died|founded|established|released|formed|opened|built|launched|elected|term|era|period|since|record|"
    r"score|retired|label|genre|call|sign|designation|class|grade|level|version|generation|brand|address|"
    r"street|phone|telephone|fax)s?\b",
    re.IGNORECASE,
)
COUNT_KEY = re.compile(r"^(?:no\.?|number) of\s+(.+)$", re.IGNORECASE)


# Sub-rows of a split row (InfoTabS flattens "Area: Total / Water / Metro"): which total they
# break down is lost, so their numbers cannot be stated of the subject.
SUB_ROWS = frozenset({"total", "water", "land", "metro", "urban", "rural", "density", "reference", "ranking", "rank"})
_CURRENCIES = frozenset({"euros", "euro", "usd", "pounds", "dollars", "yen", "rupees", "francs", "marks", "won"})


def is_unit(unit: str) -> bool:
    """A unit in words ("minutes", "km", "bytes RAM", "Euros", "%"), not a name ("Sky King") or
    an era ("BCE")."""
    first = unit.split()[0]
    if first.upper() in ("BCE", "BC", "AD", "CE"):
        return False
    return first[:1].islower() or first == "%" or first.lower() in _CURRENCIES


def quantity_cells(table: Table) -> list[tuple[int, int, int, str]]:
    """(row index, value index, value, unit) of every cell that holds one quantity: the only
    value of its row (a number in a list is a list item: Labels "19", "RCA"), a number and at
    most a unit in words (no date: "4 February 266"), not a year, under a key that counts or
    measures (NOT_A_QUANTITY)."""
    out = []
    for r, row in enumerate(table.rows):
        key = row.key.strip()
        if (
            len(row.values) != 1
            or (NOT_A_QUANTITY.search(key) and not COUNT_KEY.match(key))
            or re.search(r"[\d()]", key)
            or key.lower() in SUB_ROWS
            or len(key.split()) > 3
        ):
            continue  # a list item, an identifier, a sub-row, an event ("Reunification of China under Jin rule")
        m = NUMERIC_CELL.match(row.values[0])
        if not m or is_year_like(m.group(1)) or integer_value(m.group(1)) <= 0:
            continue
        unit = (m.group(2) or "").strip().rstrip(" .")
        if any(MONTH_NAMES.match(word) for word in unit.split()) or (unit and not is_unit(unit)):
            continue
        out.append((r, 0, integer_value(m.group(1)), unit))
    return out
