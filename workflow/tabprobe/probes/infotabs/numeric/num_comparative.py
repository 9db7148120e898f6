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

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import NUMERIC_CELL, integer_value
from tabprobe.probes.infotabs.numeric.number_templates import (
    NO_ENGLISH,
    RELATIONS,
    base_comparison,
    cell_text,
    comparison_cells,
    label_for,
    sentence,
    with_cell,
)
from tabprobe.probes.invariants import Invariant

__all__ = ["PROBE", "RELATIONS", "label_for", "sentence"]

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


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    name, cells = comparison_cells(table)
    bounds = number_range(ctx.options)
    out = []
    for row_index, value_index, value, unit in cells:
        row = table.rows[row_index]
        new_table = table
        if bounds:
            value = int(ctx.rng.integers(bounds[0], bounds[1] + 1))
            new_table, _ = with_cell(table, row_index, value_index, cell_text(value, unit, grouped=False))
            relation = RELATIONS[int(ctx.rng.integers(len(RELATIONS)))]
            if relation == "exactly" and ctx.rng.random() < 0.5:
                n = value
            else:
                choices = [k for k in range(bounds[0], bounds[1] + 1) if k != value]
                n = choices[int(ctx.rng.integers(len(choices)))]
        else:
            relation, n = base_comparison(value, ctx.rng)
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
        raise NotApplicable(NO_ENGLISH)
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
