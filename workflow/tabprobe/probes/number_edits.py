"""Number rewrites shared by the numeric probes (numerical-qa-robustness section 4.2:
language, type and verbosity perturbations; distractor rows; templated comparatives as in
diversify-your-datasets section 3).

Numbers are whole integers written as digits ("3", "1,234"), never part of a decimal, a time
("46:06"), a range ("2007-2008") or a word ("4x4"). Each rewrite returns the new text and the
list of changes ({start, end, old, new}, offsets into the original) for provenance.
"""

from __future__ import annotations

import re
from typing import Callable

from ..table import Row, Table
from .hypothesis_edits import apply_changes, change

INTEGER = re.compile(r"(?<![\w.,:/–-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w:/–-]|[.,]\d)")


def integer_value(text: str) -> int:
    return int(text.replace(",", ""))


def is_year_like(text: str) -> bool:
    return "," not in text and 1000 <= int(text) <= 2099


def integers(text: str) -> list[re.Match]:
    return list(INTEGER.finditer(text))


def rewrite_integers(text: str, rewrite: Callable[[str], str | None]) -> tuple[str, list[dict]]:
    """Apply `rewrite` to every integer of `text` (None leaves one alone)."""
    changes = []
    for m in integers(text):
        new = rewrite(m.group(0))
        if new is not None and new != m.group(0):
            changes.append(change(text, m.start(), m.end(), new))
    return apply_changes(text, changes), changes


def rewrite_table(table: Table, rewrite: Callable[[str], str | None]) -> tuple[Table, list[dict]]:
    """Apply `rewrite` to every integer in every value of the table; returns the changed cells."""
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


# A cell holding one number and, optionally, its unit: "125 minutes", "3", "1,234 km".
NUMERIC_CELL = re.compile(r"^\s*(\d{1,3}(?:,\d{3})+|\d+)(\s+[A-Za-z%][A-Za-z0-9% .]*)?\s*$")


def numeric_cells(table: Table) -> list[tuple[int, int, int, str]]:
    """(row index, value index, value, unit) of every single-number cell that is not a year."""
    out = []
    for r, row in enumerate(table.rows):
        for v, value in enumerate(row.values):
            m = NUMERIC_CELL.match(value)
            if m and not is_year_like(m.group(1)) and integer_value(m.group(1)) > 0:
                out.append((r, v, integer_value(m.group(1)), (m.group(2) or "").strip().rstrip(" .")))
    return out
