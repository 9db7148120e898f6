"""Shuffle the order of a TabFact table's columns (issue 35, the relational table probes).

A statement names columns by what they hold ("jarron collins played for the jazz for longer"),
never by where they stand, and a program names them by header: the same records under the same
headers say the same thing in any column order. So no prediction may change, for every statement
kind: E -> E and C -> C (this project's rule).
"""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import COLUMNS_REORDERED, RECORD_EDIT
from tabprobe.probes.tabfact.record_edits import TABFACT_PROBE, permute_columns, relational
from tabprobe.probes.transitions import PROJECT, transition_rule


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    permuted, change = permute_columns(relational(table), ctx.rng)
    return [ProbeExample(example.hypothesis, permuted, expected=None, provenance=change)]


# A column's place carries no meaning in a relational table: every label stays.
RULE = transition_rule("column_permutation", PROJECT, E="E", C="C")


PROBE = Probe(
    name="column_permutation",
    description="Shuffle the order of a TabFact table's columns.",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    invariants=(*RECORD_EDIT, COLUMNS_REORDERED),
    **TABFACT_PROBE,
)
