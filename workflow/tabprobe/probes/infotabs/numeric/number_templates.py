"""Templated comparisons of a table's quantity with a number, labelled by rule
(diversify-your-datasets section 3), shared by `num_comparative` and its numerical-qa-robustness
perturbations (`num_noise`, `num_distribution`, `num_logic`): which cells a template may speak
of, the sentence, the rule, and the check that an example states what its provenance records.

A template's operands are known by construction: the cell's value V and the hypothesis's N. That
is what the paper's Noise, Distribution and Logic perturbations need (its appendix E.2 leaves them
out where the operands of an answer cannot be traced to the text); InfoTabS's own hypotheses
mostly state numbers derived from the table (durations, ages, differences), whose operands
cannot be traced.
"""

from __future__ import annotations

import operator
import re
from decimal import Decimal

import numpy as np

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.base import NotApplicable
from tabprobe.probes.infotabs.number_edits import COUNT_KEY, NUMERIC_CELL, integer_value, quantity_cells
from tabprobe.probes.infotabs.titles import is_name_like, name_part
from tabprobe.probes.shared.text_edits import is_plural

# Whether "{relation} N" holds of the cell's value V.
HOLDS = {
    "more than": operator.gt,
    "less than": operator.lt,
    "exactly": operator.eq,
    "at least": operator.ge,
    "at most": operator.le,
}
# The relations num_comparative writes (its draws index this tuple: keep the order).
RELATIONS = ("more than", "less than", "exactly")

Number = int | Decimal


def label_for(relation: str, value: Number, n: Number) -> str:
    return "E" if HOLDS[relation](value, n) else "C"


def written(n: Number, grouped: bool) -> str:
    """A number as the table and the hypothesis write it: "1,234" where `grouped`, "126.4"."""
    return f"{n:,}" if grouped else str(n)


def cell_text(value: Number, unit: str, grouped: bool) -> str:
    return f"{written(value, grouped)}{' ' + unit if unit else ''}"


def _lower(words: str) -> str:
    """A key in a sentence: lower case, acronyms kept ("HDI rank" stays "HDI")."""
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words.split())


def sentence(key: str, name: str, relation: str, n: Number, unit: str, grouped: bool = False) -> str | None:
    """The hypothesis: "The length of Fearless is more than 50 minutes.", "The number of episodes
    of Lost is exactly 121.", "Kate Hudson has fewer than 3 children." (a plural key counts), "The
    earnings of Danehill are at least 177,465 Euros." (digits grouped as the cell groups them);
    None for "has exactly 1 children"."""
    number = written(n, grouped)
    amount = f"{number}{' ' + unit if unit else ''}"
    key = re.sub(r"\(s\)$", "", key.strip()).strip()
    if count := COUNT_KEY.match(key):
        return f"The number of {_lower(count.group(1))} of {name} is {relation} {amount}."
    plural = bool(key.split()) and is_plural(key.split()[-1])
    if plural and not unit and n == 1:
        return None  # "has exactly 1 children": no plural for one
    if plural and not unit:
        verb = "fewer than" if relation == "less than" else relation
        return f"{name} has {verb} {number} {_lower(key)}."
    return f"The {_lower(key)} of {name} {'are' if plural else 'is'} {relation} {amount}."


NO_ENGLISH = 'no comparison with a quantity of the table reads as English ("1 children")'


# A unit that starts so makes the number a bound or a range, not the value: Jenga's Players "1 or
# more" is not "less than 3" (CONTRADICT): it leaves the count open.
BOUND_WORDS = frozenset({"or", "and", "to", "plus"})


def comparison_cells(table: Table) -> tuple[str, list[tuple[int, int, int, str]]]:
    """The subject's name and the cells a template may compare (`quantity_cells`, bar a bound such
    as "1 or more"); NotApplicable when the title names no subject or no cell holds one quantity."""
    if not is_name_like(table):
        raise NotApplicable("the table's title is not its subject's name (a section header such as \"Free agent\")")
    cells = [cell for cell in quantity_cells(table) if not (cell[3] and cell[3].split()[0].lower() in BOUND_WORDS)]
    if not cells:
        raise NotApplicable("no cell holding one quantity (a count or measure: not a date, year, rank or list item)")
    return name_part(table.title), cells


def near(value: int, rng: np.random.Generator) -> int:
    """A number 5-50% away from `value`, above or below it (above where below would not be positive)."""
    step = max(1, round(value * float(rng.uniform(0.05, 0.5))))
    return value + step if value - step <= 0 or rng.random() < 0.5 else value - step


def base_comparison(value: int, rng: np.random.Generator) -> tuple[str, int]:
    """The comparison num_comparative writes of a cell's value V (without its `range` option): a
    relation of RELATIONS, and N = V for half of the "exactly" ones, else N near V."""
    relation = RELATIONS[int(rng.integers(len(RELATIONS)))]
    if relation == "exactly" and rng.random() < 0.5:
        return relation, value
    return relation, near(value, rng)


def with_cell(table: Table, row_index: int, value_index: int, new: str) -> tuple[Table, dict]:
    """The table with one value replaced, and the change as `table_cells` records it (so
    invariants.ROW_EDITS_REPLAY checks that nothing else changed)."""
    row = table.rows[row_index]
    values = list(row.values)
    old, values[value_index] = values[value_index], new
    rows = list(table.rows)
    rows[row_index] = Row(row.key, tuple(values))
    change = {"row": row_index, "key": row.key, "value_index": value_index, "old": old, "new": new}
    return table.with_rows(rows), change


def as_number(recorded) -> Number:
    """A number recorded in provenance (JSON: an int, or a float such as 126.4) as it is written."""
    return recorded if isinstance(recorded, int) else Decimal(str(recorded))


def as_json(n: Number) -> int | float:
    return n if isinstance(n, int) else float(n)


def states_the_comparison(example, table, out) -> str | None:
    """The new table's cell holds the recorded value V, written as the template writes it; the
    hypothesis is the template of the recorded relation and N; the expected label is the rule's
    for V and N. Recomputed from the values, so a probe that mislabels or miswrites is caught."""
    p = out.provenance
    value, n = as_number(p["value"]), as_number(p["number"])
    row = out.table.rows[p["row"]] if 0 <= p["row"] < len(out.table.rows) else None
    if row is None or row.key != p["key"] or len(row.values) != 1:
        return f"row {p['row']} is no one-valued row {p['key']!r}"
    cell = row.values[0]
    # a cell the probe wrote reads exactly as the template writes V; a cell it kept holds V
    kept = NUMERIC_CELL.match(cell) if isinstance(value, int) else None
    if cell != cell_text(value, p["unit"], p["grouped"]) and not (kept and integer_value(kept.group(1)) == value):
        return f"row {p['key']!r} holds {cell!r}, not {written(value, p['grouped'])}"
    text = sentence(p["key"], name_part(out.table.title), p["relation"], n, p["unit"], p["grouped"])
    if out.hypothesis != text:
        return f"the hypothesis is {out.hypothesis!r}, the template of the recorded comparison {text!r}"
    if out.expected != label_for(p["relation"], value, n):
        return f"{written(value, p['grouped'])} {p['relation']} {written(n, p['grouped'])} is not {out.expected}"
    return None
