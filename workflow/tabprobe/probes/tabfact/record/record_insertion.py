"""Insert one record into a TabFact table (issue 35, the relational table probes): a record of
another table of the split with the same header, or else a recombination of this table's cells
column by column; never a copy of an existing record, and none of its cells shares a content word
with the statement (probes/tabfact/record_edits.py, insert_record).

Only lookup statements are probed (probes/tabfact/statement_kinds.py): a new record can change any count,
superlative, comparison, only/all claim or negated claim either way; those are skipped, by kind,
in coverage.

The rule for a lookup (this project's): E -> E, C -> C. An entailed lookup keeps the record it
reads, and the new record is not about anything it names (no shared content word), so it neither
removes the support nor contradicts it. A refuted lookup could become entailed only if a new
record held what it claims, which needs the words it claims: the new record shares none.
"""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import INSERTED_RECORD_NEW, RECORD_EDIT
from tabprobe.probes.tabfact.record_edits import TABFACT_PROBE, insert_record, relational, require_lookup
from tabprobe.probes.transitions import PROJECT, transition_rule


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    require_lookup(example.hypothesis, "an inserted record")
    inserted, change = insert_record(table, example.hypothesis, ctx)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance=change)]


# A record the lookup does not name leaves it as it was.
RULE = transition_rule("record_insertion", PROJECT, E="E", C="C")


PROBE = Probe(
    name="record_insertion",
    description="Insert a record unrelated to the statement into a TabFact table (lookup statements only).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    invariants=(*RECORD_EDIT, INSERTED_RECORD_NEW),
    **TABFACT_PROBE,
)
