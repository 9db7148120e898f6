"""A probe of Ledger's own: the ledger's rows in reverse order. A ledger's rows are named, not
ordered, so a model that reads them should keep its prediction: judged by a transition rule
(TRUE stays TRUE, FALSE stays FALSE)."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.transitions import PROJECT, transition_rule


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if len(table.rows) < 2:
        raise NotApplicable("a ledger of fewer than two rows")
    reversed_table = table.with_rows(table.rows[::-1])
    return [ProbeExample(example.hypothesis, reversed_table, None, {"rows": "reversed"})]


PROBE = Probe(
    name="ledger_reverse_rows",
    description="The ledger's rows in reverse order.",
    apply=apply,
    judged_by="transitions",
    transition_rule=transition_rule("ledger_reverse_rows", PROJECT, E="E", C="C"),
    labels=frozenset({"E", "C"}),
)
