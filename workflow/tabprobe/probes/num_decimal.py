"""Integers as decimals (numerical-qa-robustness, Type perturbation): "3" -> "3.0" in the
hypothesis and for the same integers in the table; years are left alone (nobody writes
"1979.0"). Values do not change: label preserved."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .number_edits import integers, is_year_like, rewrite_integers, rewrite_table


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mentioned = {m.group(0) for m in integers(example.hypothesis) if not is_year_like(m.group(0))}
    if not mentioned:
        raise NotApplicable("no integer (other than a year) in the hypothesis")

    def rewrite(digits):
        return f"{digits}.0" if digits in mentioned else None

    hypothesis, changes = rewrite_integers(example.hypothesis, rewrite)
    new_table, cells = rewrite_table(table, rewrite)
    return [ProbeExample(hypothesis, new_table, example.label, {"rule": "integer_to_decimal", "changes": changes, "table_cells": cells})]


PROBE = Probe(
    name="num_decimal",
    description="Write the hypothesis's integers (and the same integers in the table) as N.0 (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Type)",
    family="numeric",
)
