"""An explicitly irrelevant number beside the relevant one (numerical-qa-robustness, Verbosity
perturbation): a table cell holding an integer that the hypothesis mentions becomes
"N (not M)". The table still states N: label preserved."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .number_edits import integer_value, integers, rewrite_table


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mentioned = sorted({m.group(0) for m in integers(example.hypothesis)})
    out = []
    for digits in mentioned:
        value = integer_value(digits)
        step = int(ctx.rng.integers(1, max(2, value // 2 + 1)))
        other = value + step if value - step <= 0 or ctx.rng.random() < 0.5 else value - step
        new_table, cells = rewrite_table(table, lambda d: f"{d} (not {other})" if d == digits else None)
        if cells:
            out.append(ProbeExample(example.hypothesis, new_table, example.label,
                                    {"rule": "verbosity", "number": digits, "distractor": other, "table_cells": cells}))
    if not out:
        raise NotApplicable("no integer of the hypothesis appears in the table")
    return out


PROBE = Probe(
    name="num_verbosity",
    description="Rewrite a table cell's number N that the hypothesis mentions as 'N (not M)' (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Verbosity)",
    family="numeric",
)
