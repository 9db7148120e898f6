"""Insert a row with a key the table lacks, from a table of the same category (paper section 5.1,
appendix Table 13). New information cannot make E or C wrong: E and C must stay, N may go anywhere.

One insertion is sampled here rather than listing every candidate (hundreds per table).
"""

from .base import Example, Probe, ProbeContext, ProbeExample
from .table_edits import insert_new_key_row
from ..table import Table
from .invariants import TABLE_EDIT
from .table_edits import INSERTED_KEYS_NEW


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    inserted, change = insert_new_key_row(table, ctx)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance=change)]


PROBE = Probe(
    name="row_insertion",
    description="Insert a row with a new key, taken from a table of the same category.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_insertion",
    paper_reference="section 5.1, appendix Table 13",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
