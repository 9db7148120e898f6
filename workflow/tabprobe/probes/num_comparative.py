"""Templated numeric comparisons with rule-computed labels (diversify-your-datasets section 3,
numerical reasoning): from a table cell holding one number V (and its unit), the hypothesis
"The {key} of {title} is more than / less than / exactly N {unit}." is ENTAIL when the
comparison holds for V and CONTRADICT when it does not. The gold hypothesis is replaced; its
table is kept.

Option `range: [low, high]` (default none): draw both V (written into the cell) and N from this
range of integers, so a model can be trained on one range and tested on another (the
controlled-variance splits); without it V is the table's own value and N lies near it."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from ..table import Row
from .number_edits import numeric_cells

RELATIONS = ("more than", "less than", "exactly")


def label_for(relation: str, value: int, n: int) -> str:
    holds = {"more than": value > n, "less than": value < n, "exactly": value == n}[relation]
    return "E" if holds else "C"


def number_range(options) -> tuple[int, int] | None:
    bounds = options.get("range")
    if bounds is None:
        return None
    if (not isinstance(bounds, list) or len(bounds) != 2 or not all(isinstance(b, int) for b in bounds)
            or not 0 < bounds[0] < bounds[1]):
        raise ValueError(f"probes.num_comparative.range must be [low, high] with 0 < low < high, not {bounds!r}")
    return bounds[0], bounds[1]


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    cells = numeric_cells(table)
    if not cells:
        raise NotApplicable("no cell holding a single number (other than a year)")
    bounds = number_range(ctx.options)
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
        hypothesis = f"The {row.key.strip().lower()} of {table.title.strip()} is {relation} {n}{' ' + unit if unit else ''}."
        provenance = {"rule": "comparative_template", "row": row_index, "key": row.key, "value": value,
                      "relation": relation, "number": n, "range": list(bounds) if bounds else None}
        out.append(ProbeExample(hypothesis, new_table, label_for(relation, value, n), provenance))
    return out


PROBE = Probe(
    name="num_comparative",
    description="Templated 'more than / less than / exactly N' hypotheses from numeric cells, labels by rule.",
    apply=apply,
    judged_by="expected",
    paper_reference="diversify-your-datasets section 3 (numerical reasoning)",
    family="numeric",
)
