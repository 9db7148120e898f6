"""Delete a random row, then insert a row with a key the original table lacked, from a table of
the same category (paper appendix Table 17). The composed rule is this project's reading."""

from ..table import Table
from .base import Example, Probe, ProbeContext, ProbeExample
from .invariants import TABLE_EDIT
from .table_edits import INSERTED_KEYS_NEW, delete_row, insert_new_key_row


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    deleted, deletion = delete_row(table, ctx.rng)
    # The new key must be unrelated to the original table's keys too (the deleted one included),
    # or this would be a row update.
    inserted, insertion = insert_new_key_row(deleted, ctx, against=table)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance={**deletion, **insertion})]


PROBE = Probe(
    name="row_deletion_insertion",
    description="Delete one random row, then insert a row with a new key from a twin table.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_deletion_insertion",
    paper_reference="appendix Table 17",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
