"""Integers as decimals (numerical-qa-robustness, Type perturbation): "3" -> "3.0" in the
hypothesis and for the same integers in the table; years are left alone (nobody writes
"1979.0"). Values do not change: label preserved."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import is_year_like, rewritable_numbers, rewrite_integers, rewrite_table
from tabprobe.probes.invariants import CLEAN_SPACING, EDITS_REPRODUCE, ROW_EDITS_REPLAY


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mentioned = {d for d in rewritable_numbers(example.hypothesis, table) if not is_year_like(d)}
    if not mentioned:
        raise NotApplicable("no integer (other than a year) in the hypothesis that stands as a number everywhere")

    def rewrite(digits):
        return f"{digits}.0" if digits in mentioned else None

    hypothesis, changes = rewrite_integers(example.hypothesis, rewrite)
    new_table, cells = rewrite_table(table, rewrite)
    return [
        ProbeExample(
            hypothesis,
            new_table,
            example.label,
            {"rule": "integer_to_decimal", "changes": changes, "table_cells": cells},
        )
    ]


PROBE = Probe(
    name="num_decimal",
    description="Write the hypothesis's integers (and the same integers in the table) as N.0 (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Type)",
    family="numeric",
    invariants=(EDITS_REPRODUCE, CLEAN_SPACING, ROW_EDITS_REPLAY),
)
