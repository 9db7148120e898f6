"""Shuffle the order of a TabFact table's records (issue 35, the relational table probes).

A relational table is a set of records: a count, a superlative, a comparison or a lookup reads
the same records in any order. Statements about positions do not ("the first game", "the 2nd
race", "the week after"): they read the table's order, so they are skipped, by
probes/tabfact/statement_kinds.py's ordinal kind, and counted in coverage. For every other statement no
prediction may change: E -> E, C -> C (this project's rule).
"""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import RECORD_EDIT, RECORDS_REORDERED
from tabprobe.probes.tabfact.record_edits import TABFACT_PROBE, permute_records, relational
from tabprobe.probes.tabfact.statement_kinds import ORDINAL, statement_kinds
from tabprobe.probes.transitions import PROJECT, transition_rule

# Coverage's reason for a statement the rule does not hold for.
ORDINAL_SKIPPED = "an ordinal or position statement (first, last, 2nd, before, after ...): the order is its evidence"


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    if ORDINAL in statement_kinds(example.hypothesis):
        raise NotApplicable(ORDINAL_SKIPPED)
    permuted, change = permute_records(table, ctx.rng)
    return [ProbeExample(example.hypothesis, permuted, expected=None, provenance=change)]


# The order of records carries no meaning for a statement that names no position: every label stays.
RULE = transition_rule("record_permutation", PROJECT, E="E", C="C")


PROBE = Probe(
    name="record_permutation",
    description="Shuffle the order of a TabFact table's records (statements about positions skipped).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    invariants=(*RECORD_EDIT, RECORDS_REORDERED),
    **TABFACT_PROBE,
)
