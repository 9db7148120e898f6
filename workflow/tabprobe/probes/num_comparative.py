"""Templated numeric comparisons with rule-computed labels (diversify-your-datasets section 3,
numerical reasoning): from a table cell holding one quantity V (a count or a measure with its
unit, the only value of its row; never a date, year, rank, identifier or list item), the
hypothesis "The {key} of {name} is more than / less than / exactly N {unit}." (for a counted
plural key "{name} has more than / fewer than / exactly N {key}.") is ENTAIL when the comparison
holds for V and CONTRADICT when it does not. The gold hypothesis is replaced; its table is kept,
and the `label` column still holds the gold label of the hypothesis it replaced (the probe's
label is `expected`).

Option `range: [low, high]` (default none): draw both V (written into the cell) and N from this
range of integers, so a model can be trained on one range and tested on another (the
controlled-variance splits); without it V is the table's own value and N lies near it."""

import re

from ..table import Row
from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .invariants import Invariant
from .number_edits import COUNT_KEY, NUMERIC_CELL, integer_value, quantity_cells
from .text_edits import is_plural
from .titles import is_name_like, name_part

RELATIONS = ("more than", "less than", "exactly")


def label_for(relation: str, value: int, n: int) -> str:
    holds = {"more than": value > n, "less than": value < n, "exactly": value == n}[relation]
    return "E" if holds else "C"


OPTIONS = {
    "range": {
        "description": "[low, high]: draw the cell's value and N from these integers",
        "type": ["array", "null"],
        "items": {"type": "integer", "minimum": 1},
        "minItems": 2,
        "maxItems": 2,
        "default": None,
    }
}


def range_problems(options) -> list[tuple[str, str]]:
    bounds = options.get("range")
    if bounds and not bounds[0] < bounds[1]:
        return [("range", f"{bounds} is not [low, high] with low < high")]
    return []


def number_range(options) -> tuple[int, int] | None:
    """The option `range` as (low, high), or None; checked with the config (OPTIONS, range_problems)."""
    bounds = options.get("range")
    return None if bounds is None else (bounds[0], bounds[1])


def _lower(words: str) -> str:
    """A key in a sentence: lower case, acronyms kept ("HDI rank" stays "HDI")."""
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words.split())


def sentence(key: str, name: str, relation: str, n: int, unit: str, grouped: bool = False) -> str | None:
    """The hypothesis: "The length of Fearless is more than 50 minutes.", "The number of episodes
    of Lost is exactly 121.", "Kate Hudson has fewer than 3 children." (a plural key counts), "The
    earnings of Danehill are more than 177,465 Euros." (digits grouped as the cell groups them)."""
    number = f"{n:,}" if grouped else str(n)
    amount = f"{number}{' ' + unit if unit else ''}"
    key = re.sub(r"\(s\)$", "", key.strip()).strip()
    if count := COUNT_KEY.match(key):
        return f"The number of {_lower(count.group(1))} of {name} is {relation} {amount}."
    plural = bool(key.split()) and is_plural(key.split()[-1])
    if plural and not unit and n == 1:
        return None  # "has exactly 1 children": no plural for one
    if plural and not unit:
        verb = {"more than": "more than", "less than": "fewer than", "exactly": "exactly"}[relation]
        return f"{name} has {verb} {number} {_lower(key)}."
    return f"The {_lower(key)} of {name} {'are' if plural else 'is'} {relation} {amount}."


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if not is_name_like(table):
        raise NotApplicable("the table's title is not its subject's name (a section header such as \"Free agent\")")
    cells = quantity_cells(table)
    if not cells:
        raise NotApplicable("no cell holding one quantity (a count or measure: not a date, year, rank or list item)")
    bounds = number_range(ctx.options)
    name = name_part(table.title)
    out = []
    for row_index, value_index, value, unit in cells:
        row = table.rows[row_index]
        new_table = table
        if bounds:
            value = int(ctx.rng.integers(bounds[0], bounds[1] + 1))
            values = list(row.values)
            values[value_index] = f"{value}{' ' + unit if unit else ''}"
            rows = list(table.rows)
            rows[row_index] = Row(row.key, tuple(values))
            new_table = table.with_rows(rows)
        relation = RELATIONS[int(ctx.rng.integers(len(RELATIONS)))]
        if relation == "exactly" and ctx.rng.random() < 0.5:
            n = value
        elif bounds:
            choices = [k for k in range(bounds[0], bounds[1] + 1) if k != value]
            n = choices[int(ctx.rng.integers(len(choices)))]
        else:
            step = max(1, round(value * float(ctx.rng.uniform(0.05, 0.5))))
            n = value + step if value - step <= 0 or ctx.rng.random() < 0.5 else value - step
        provenance = {
            "rule": "comparative_template",
            "row": row_index,
            "key": row.key,
            "value": value,
            "relation": relation,
            "number": n,
            "range": list(bounds) if bounds else None,
        }
        grouped = "," in row.values[value_index] and not bounds
        text = sentence(row.key, name, relation, n, unit, grouped)
        if text is not None:
            out.append(ProbeExample(text, new_table, label_for(relation, value, n), provenance))
    if not out:
        raise NotApplicable('no comparison with a quantity of the table reads as English ("1 children")')
    return out


def _label_by_rule(example, table, out):
    """The comparison is decided by the cell the provenance names, as the new table holds it."""
    p = out.provenance
    row = out.table.rows[p["row"]]
    m = NUMERIC_CELL.match(row.values[0]) if len(row.values) == 1 else None
    if row.key != p["key"] or not m:
        return f"row {p['row']} ({row.key!r}: {list(row.values)}) holds no single quantity"
    if integer_value(m.group(1)) != p["value"]:
        return f"the cell holds {m.group(1)}, the provenance says {p['value']}"
    if label_for(p["relation"], p["value"], p["number"]) != out.expected:
        return f"{p['value']} {p['relation']} {p['number']} is not {out.expected}"
    return None


PROBE = Probe(
    name="num_comparative",
    description="Templated 'more than / less than / exactly N' hypotheses from numeric cells, labels by rule.",
    apply=apply,
    judged_by="expected",
    paper_reference="diversify-your-datasets section 3 (numerical reasoning)",
    family="numeric",
    invariants=(Invariant("labels the comparison by the table's cell", _label_by_rule),),
    options=OPTIONS,
    check_options=range_problems,
)
