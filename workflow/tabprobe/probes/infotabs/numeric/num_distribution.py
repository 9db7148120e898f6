"""Large numbers (numerical-qa-robustness, Distribution perturbation): num_comparative's templated
comparison of a cell's quantity V with a number N, both moved up by one offset drawn from a normal
distribution, so that the numbers leave the range a model saw in training (the paper moves most of
them above 500, where BERT's vocabulary has no single token for an integer: Wallace et al. 2019).
The cell "126 minutes" becomes "1,104 minutes", the hypothesis "The running time of Hugo is
less than 1,078 minutes.".

Why a template, not the gold hypothesis: a changed number has a computable label only where its
operands are known, which InfoTabS's hypotheses rarely allow (they derive their numbers from the
table: durations, ages, differences; 7 of alpha1's 1,800 copy theirs from a cell that holds only
it). The paper leaves Distribution out on such data (its appendix E.2).

One offset for both numbers keeps the comparison, and so the label, of the base problem (V - N is
unchanged); the label is recomputed by rule from the written numbers all the same. The offset is
redrawn until it is at least 1 and V lands above 500, so every example tests a large number (a
normal truncated there: with the default mean 1000 and sd 300, about 5% of draws are redrawn).
Counts take large values as well as measures do ("Kate Hudson has fewer than 1,003 children."):
the table says so, and the rule reads the table.

Options `mean` (default 1000) and `sd` (default 300): the normal distribution of the offset. The
paper's own constants are not in our copy of its text; these are ours."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import NUMERIC_CELL, integer_value
from tabprobe.probes.infotabs.numeric.number_templates import (
    base_comparison,
    cell_text,
    comparison_cells,
    label_for,
    sentence,
    states_the_comparison,
    with_cell,
)
from tabprobe.probes.invariants import ROW_EDITS_REPLAY, Invariant

# Numbers above this are the paper's "large" ones (section 4.2, after Wallace et al. 2019).
ABOVE = 500

OPTIONS = {
    "mean": {
        "description": f"mean of the normal offset added to both numbers (above {ABOVE})",
        "type": "number",
        "exclusiveMinimum": ABOVE,
        "default": 1000,
    },
    "sd": {
        "description": "standard deviation of the normal offset",
        "type": "number",
        "minimum": 0,
        "default": 300,
    },
}


def offset(value: int, rng, mean: float, sd: float) -> int:
    """An integer offset of at least 1 from N(mean, sd) that takes `value` above ABOVE (redrawn:
    with the mean above ABOVE a draw is kept at least half the time)."""
    for _ in range(200):
        k = int(round(float(rng.normal(mean, sd))))
        if k >= 1 and value + k > ABOVE:
            return k
    raise NotApplicable(f"no offset from N({mean}, {sd}) took the cell above {ABOVE} in 200 draws")


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mean = ctx.options.get("mean", OPTIONS["mean"]["default"])  # checked with the config (OPTIONS)
    sd = ctx.options.get("sd", OPTIONS["sd"]["default"])
    name, cells = comparison_cells(table)
    out = []
    for row_index, value_index, base_value, unit in cells:
        relation, base_number = base_comparison(base_value, ctx.rng)
        k = offset(base_value, ctx.rng, mean, sd)
        value, number = base_value + k, base_number + k
        # digits grouped from 1,000 up, in the cell and the hypothesis alike: "1104" reads as a year
        new_table, change = with_cell(table, row_index, value_index, cell_text(value, unit, grouped=True))
        provenance = {
            "rule": "distribution_template",
            "row": row_index,
            "key": table.rows[row_index].key,
            "unit": unit,
            "grouped": True,
            "relation": relation,
            "value": value,
            "number": number,
            "offset": k,
            "base": {"value": base_value, "number": base_number},
            "table_cells": [change],
        }
        # N + k > 1, so the plural always reads ("has exactly 1 children" cannot arise)
        text = sentence(table.rows[row_index].key, name, relation, number, unit, grouped=True)
        out.append(ProbeExample(text, new_table, label_for(relation, value, number), provenance))
    return out


def _one_offset_above(example, table, out):
    """V and N are the gold cell's integer and an integer N0 moved up by one offset of at least 1,
    V ends above ABOVE, and the rule gives the base comparison the same label."""
    p = out.provenance
    base_value, base_number, k = p["base"]["value"], p["base"]["number"], p["offset"]
    gold = NUMERIC_CELL.match(table.rows[p["row"]].values[0]) if len(table.rows[p["row"]].values) == 1 else None
    if gold is None or integer_value(gold.group(1)) != base_value:
        return f"the gold cell {list(table.rows[p['row']].values)} does not hold {base_value}"
    if not (isinstance(k, int) and k >= 1 and p["value"] - base_value == k and p["number"] - base_number == k):
        return f"{base_value} / {base_number} -> {p['value']} / {p['number']} is not one offset of at least 1 ({k})"
    if p["value"] <= ABOVE:
        return f"the cell's new value {p['value']} is not above {ABOVE}"
    if label_for(p["relation"], base_value, base_number) != out.expected:
        return f"the base comparison ({base_value} {p['relation']} {base_number}) is not {out.expected}"
    return None


PROBE = Probe(
    name="num_distribution",
    description="num_comparative's template with both numbers moved above 500 by one normal offset (label by rule).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 and appendix A (Distribution)",
    family="numeric",
    invariants=(
        Invariant("labels the comparison by the table's cell", states_the_comparison),
        Invariant("moves both numbers by one offset, above 500", _one_offset_above),
        ROW_EDITS_REPLAY,
    ),
    options=OPTIONS,
)
