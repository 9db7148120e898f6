"""Distractor numbers (numerical-qa-robustness, Extra perturbation, on tables): insert rows
holding numbers under keys the table lacks and the hypothesis does not mention, taken from
tables of the same category. The evidence is untouched: label preserved.

Option `rows` (default 2): how many distractor rows to insert."""

import re

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .table_edits import insert_new_key_row
from ..table import normalised
from .invariants import TABLE_EDIT
from .table_edits import INSERTED_KEYS_NEW


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    wanted = ctx.options.get("rows", 2)
    if not isinstance(wanted, int) or wanted < 1:
        raise ValueError(f"probes.num_distractor_rows.rows must be a positive integer, not {wanted!r}")
    hypothesis = normalised(example.hypothesis)

    def is_distractor(row):
        return (any(re.search(r"\d", v) for v in row.values)
                and normalised(row.key) not in hypothesis)

    inserted, current = [], table
    for _ in range(wanted):
        try:
            current, change = insert_new_key_row(current, ctx, accept=is_distractor)
        except NotApplicable:
            break
        inserted.append(change["inserted_row"])
    if not inserted:
        raise NotApplicable("no same-category table has a numeric row with a new, unmentioned key")
    return [ProbeExample(example.hypothesis, current, example.label, {"rule": "distractor_rows", "inserted_rows": inserted})]


PROBE = Probe(
    name="num_distractor_rows",
    description="Insert rows with numbers under keys the hypothesis does not mention (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Extra)",
    family="numeric",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
