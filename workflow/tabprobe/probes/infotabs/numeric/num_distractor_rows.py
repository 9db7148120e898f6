"""Distractor numbers (numerical-qa-robustness, Extra perturbation, on tables): insert rows
holding numbers (standing as numbers, not inside a name such as "Dok2") under keys the table
lacks and the hypothesis does not mention, taken from twins of the table as row_insertion takes
them (table_edits.insert_new_key_row). The evidence is untouched: label preserved.

Option `rows` (default 2): how many distractor rows to insert."""

import re

from tabprobe.data.infobox.table import normalised
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import quantities
from tabprobe.probes.infotabs.table_edits import INSERTED_KEYS_NEW, insert_new_key_row
from tabprobe.probes.invariants import TABLE_EDIT

# Money, in a hypothesis or a row: rows of money are never distractors for a claim about money.
MONEY = re.compile(
    r"[$€£¥]|\b(?:profit|profitable|money|earn\w*|gross\w*|budget|revenue|income|cost\w*|dollars?|"
    r"euros?|pounds?|sales|sold|box office|net worth|salary|price|funding|spent|spend\w*)\b",
    re.IGNORECASE,
)


OPTIONS = {
    "rows": {"type": "integer", "minimum": 1, "maximum": 20, "default": 2, "description": "distractor rows to insert"}
}


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    wanted = ctx.options.get("rows", OPTIONS["rows"]["default"])  # checked with the config (OPTIONS)
    hypothesis = normalised(example.hypothesis)

    about_money = bool(MONEY.search(example.hypothesis))

    def is_distractor(row):
        return (
            any(quantities(v) for v in row.values)  # a number standing as one, not in a name ("Dok2")
            and normalised(row.key) not in hypothesis
            # a budget beside a box office decides whether a film "made a profit"
            and not (about_money and (MONEY.search(row.key) or any(MONEY.search(v) for v in row.values)))
        )

    inserted, current = [], table
    for _ in range(wanted):
        try:
            current, change = insert_new_key_row(current, ctx, accept=is_distractor)
        except NotApplicable:
            break
        inserted.append(change["inserted_row"])
    if not inserted:
        raise NotApplicable("no same-category table has a numeric row with a new, unmentioned key")
    return [
        ProbeExample(example.hypothesis, current, example.label, {"rule": "distractor_rows", "inserted_rows": inserted})
    ]


PROBE = Probe(
    name="num_distractor_rows",
    description="Insert rows with numbers under keys the hypothesis does not mention (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Extra)",
    family="numeric",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
    options=OPTIONS,
)
