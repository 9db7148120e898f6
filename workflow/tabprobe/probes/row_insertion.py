"""Insert a row under a key the table lacks, from a table of the same kind (paper section 5.1,
appendix Table 13). New information cannot make E or C wrong: E and C must stay, N may go anywhere.

"New" is made strict (table_edits.insert_new_key_row): the row comes from a twin of the table
(same category, mostly the same keys), under a key its twins commonly have, naming nothing the
table's keys name, and carrying no date, identity, place, office or name that could clash with
what the table says. It is another subject's fact, so it may be false of this subject in the world,
as in the paper; the table's own rows, the hypothesis's evidence, are untouched.

One insertion is sampled here rather than listing every candidate (hundreds per table).
"""

from ..table import Table
from .base import Example, Probe, ProbeContext, ProbeExample
from .invariants import TABLE_EDIT
from .table_edits import INSERTED_KEYS_NEW, insert_new_key_row


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    inserted, change = insert_new_key_row(table, ctx)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance=change)]


PROBE = Probe(
    name="row_insertion",
    description="Insert a row with a new key, taken from a twin table (same category, mostly the same keys).",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_insertion",
    paper_reference="section 5.1, appendix Table 13",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
