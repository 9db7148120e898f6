"""Delete one record of a TabFact table, chosen at random (issue 35, the relational table probes).

Only lookup statements are probed (probes/tabfact/statement_kinds.py): deleting a record can change any
count, superlative, comparison, only/all claim or negated claim either way, and those are
skipped, by kind, in coverage.

The rule for a lookup (this project's): E -> E or C. If the deleted record is the one the
statement reads, the table no longer supports it, and in TabFact's closed world (two labels) a
statement the table does not support is REFUTED; any other record leaves it entailed. C -> C: a
refuted lookup names a value its record does not hold (or a record the table lacks); taking a
record away adds no support, so it cannot become entailed.
"""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import RECORD_EDIT
from tabprobe.probes.tabfact.record_edits import TABFACT_PROBE, random_deletion, relational, require_lookup
from tabprobe.probes.transitions import PROJECT, transition_rule


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    require_lookup(example.hypothesis, "a deleted record")
    deleted, change = random_deletion(table, ctx.rng)
    return [ProbeExample(example.hypothesis, deleted, expected=None, provenance=change)]


# A lookup may lose its evidence (E -> C) but never gain it (C stays C).
RULE = transition_rule("record_deletion", PROJECT, E="EC", C="C")


PROBE = Probe(
    name="record_deletion",
    description="Delete one randomly chosen record of a TabFact table (lookup statements only).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    invariants=RECORD_EDIT,
    **TABFACT_PROBE,
)
