"""Numbers as words (numerical-qa-robustness, Language perturbation): every integer of the
hypothesis, and the same integers in the table, written out with num2words ("3" -> "three",
years read as years: "1979" -> "nineteen seventy-nine"). Values do not change: label preserved."""

from num2words import num2words

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import (
    integer_value,
    is_year_like,
    rewritable_numbers,
    rewrite_integers,
    rewrite_table,
)
from tabprobe.probes.invariants import CLEAN_SPACING, EDITS_REPRODUCE, ROW_EDITS_REPLAY


def in_words(digits: str) -> str:
    return num2words(integer_value(digits), to="year" if is_year_like(digits) else "cardinal")


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    mentioned = rewritable_numbers(example.hypothesis, table)
    if not mentioned:
        raise NotApplicable("no integer in the hypothesis that stands as a number everywhere it occurs")

    def rewrite(digits):
        return in_words(digits) if digits in mentioned else None

    hypothesis, changes = rewrite_integers(example.hypothesis, rewrite)
    new_table, cells = rewrite_table(table, rewrite)
    return [
        ProbeExample(
            hypothesis, new_table, example.label, {"rule": "number_to_words", "changes": changes, "table_cells": cells}
        )
    ]


PROBE = Probe(
    name="num_words",
    description="Write the hypothesis's integers (and the same integers in the table) as words (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Language)",
    family="numeric",
    invariants=(EDITS_REPRODUCE, CLEAN_SPACING, ROW_EDITS_REPLAY),
)
