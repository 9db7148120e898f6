"""Fractional numbers (numerical-qa-robustness, Noise perturbation): num_comparative's templated
comparison of a measure with a number N, both numbers given a one-digit fractional part drawn
uniformly from .1 to .9, as the paper's appendix A adds one to a number: the cell "126 minutes"
becomes "126.4 minutes", the hypothesis "The running time of Hugo is more than 120.7 minutes.".

Why a template, not the gold hypothesis: the label of a changed number is computable only where
the number's operands are known. A gold hypothesis whose number is copied from one cell holding
only it (the same quantity changed in the cell and the hypothesis alike would keep the label) is
rare in InfoTabS, whose hypotheses mostly derive their numbers (durations from years, ages,
differences): 7 of alpha1's 1,800, one of them a measure. The paper leaves Noise out on such data
(its appendix E.2).

The label is the rule's for the written numbers, and it is the base comparison's: N = V stays
equal (one fraction for both, the "exactly V" case), and integers N != V differ by at least 1,
so fractions below 1 keep their order. Only a measure with its unit (minutes, km, Euros, %)
gets a fraction; a count would read "2.3 children", which no table says."""

from decimal import Decimal

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import NUMERIC_CELL, integer_value
from tabprobe.probes.infotabs.numeric.number_templates import (
    NO_ENGLISH,
    as_json,
    as_number,
    base_comparison,
    cell_text,
    comparison_cells,
    label_for,
    sentence,
    states_the_comparison,
    with_cell,
)
from tabprobe.probes.invariants import ROW_EDITS_REPLAY, Invariant

# Units whose amounts take fractions (first word of the cell's unit, lower case): time, mass,
# length, area, volume, speed, energy, power, money, share. "bytes", "languages", "platforms",
# "times annually" count; they are left alone, as are letters that may be words ("in", "t").
MEASURE_UNITS = frozenset(
    {
        *("seconds", "second", "secs", "sec", "minutes", "minute", "mins", "min", "hours", "hour", "hrs", "hr"),
        *("days", "day", "weeks", "week", "months", "month", "years", "year"),
        *("g", "kg", "mg", "tonnes", "tons", "lb", "lbs", "pounds", "oz", "ounces", "quintals", "stone"),
        *("mm", "cm", "m", "km", "inch", "inches", "ft", "feet", "foot", "yd", "yards", "mi", "miles"),
        *("ha", "hectares", "acres", "km2", "m2", "sq", "liters", "litres", "ml", "gallons"),
        *("m/s", "km/h", "kmh", "mph", "knots", "kj/mol", "kj", "kcal", "watts", "kw", "mw", "hp"),
        *("euros", "euro", "usd", "dollars", "yen", "rupees", "francs", "crore", "cr", "lakh", "million", "billion"),
        "%",
    }
)


def is_measure(unit: str) -> bool:
    return bool(unit) and unit.split()[0].lower() in MEASURE_UNITS


def fraction(rng) -> Decimal:
    return Decimal(int(rng.integers(1, 10))) / 10


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    name, cells = comparison_cells(table)
    cells = [cell for cell in cells if is_measure(cell[3])]
    if not cells:
        raise NotApplicable("no cell holding one measure with its unit (a count takes no fraction: '2.3 children')")
    out = []
    for row_index, value_index, base_value, unit in cells:
        relation, base_number = base_comparison(base_value, ctx.rng)
        value = base_value + fraction(ctx.rng)
        number = value if base_number == base_value else base_number + fraction(ctx.rng)
        grouped = "," in table.rows[row_index].values[value_index]
        new_table, change = with_cell(table, row_index, value_index, cell_text(value, unit, grouped))
        provenance = {
            "rule": "noise_template",
            "row": row_index,
            "key": table.rows[row_index].key,
            "unit": unit,
            "grouped": grouped,
            "relation": relation,
            "value": as_json(value),
            "number": as_json(number),
            "base": {"value": base_value, "number": base_number},
            "table_cells": [change],
        }
        text = sentence(table.rows[row_index].key, name, relation, number, unit, grouped)
        if text is not None:
            out.append(ProbeExample(text, new_table, label_for(relation, value, number), provenance))
    if not out:
        raise NotApplicable(NO_ENGLISH)
    return out


def _fractions_keep_the_comparison(example, table, out):
    """V and N are the gold cell's integer and an integer N0 plus one-digit fractions (one shared
    where N0 = V), and the rule gives the integers' comparison the same label."""
    p = out.provenance
    base_value, base_number = p["base"]["value"], p["base"]["number"]
    gold = NUMERIC_CELL.match(table.rows[p["row"]].values[0]) if len(table.rows[p["row"]].values) == 1 else None
    if gold is None or integer_value(gold.group(1)) != base_value:
        return f"the gold cell {list(table.rows[p['row']].values)} does not hold {base_value}"
    if not is_measure(p["unit"]):
        return f"{p['unit']!r} is no unit of measure"
    value, number = as_number(p["value"]), as_number(p["number"])
    steps = {Decimal(k) / 10 for k in range(1, 10)}
    if value - base_value not in steps or number - base_number not in steps:
        return f"{value} / {number} are not {base_value} / {base_number} plus a fraction of one digit"
    if (value == number) != (base_value == base_number):
        return f"{base_value} vs {base_number} became {value} vs {number}"
    if label_for(p["relation"], base_value, base_number) != out.expected:
        return f"the integers' comparison ({base_value} {p['relation']} {base_number}) is not {out.expected}"
    return None


PROBE = Probe(
    name="num_noise",
    description="num_comparative's template on a measure, both numbers given a one-digit fraction (label by rule).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 and appendix A (Noise)",
    family="numeric",
    invariants=(
        Invariant("labels the comparison by the table's cell", states_the_comparison),
        Invariant("adds one-digit fractions that keep the comparison", _fractions_keep_the_comparison),
        ROW_EDITS_REPLAY,
    ),
)
