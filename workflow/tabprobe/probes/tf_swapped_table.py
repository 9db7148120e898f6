"""TabFact premise control (as InfoTabS paper Table 4): the premise is another table of the split,
drawn with the example's seeded generator, whose header differs from the gold table's (a table of
the same header may be the same kind of table, of the same season's next week, and could still
decide the statement). Accuracy against the gold label near the statement-only level means the
model's answers do not depend on which table it reads."""

from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HEADER_DIFFERS, HYPOTHESIS_KEPT, RELATIONAL_PREMISE_REPLACED
from tabprobe.probes.statement_edits import relational

# Draws tried before every other table is listed (most tables of a split differ in header).
TRIES = 20


def _table_ids(ctx: ProbeContext) -> list[str]:
    """The split's TabFact table ids, sorted (built once per split)."""
    ids = ctx.shared.get("tf_swapped_table:ids")
    if ids is None:
        ids = [t for t in sorted(ctx.tables) if isinstance(ctx.tables[t], RelationalTable)]
        ctx.shared["tf_swapped_table:ids"] = ids
    return ids


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    ids = _table_ids(ctx)

    def other(table_id: str) -> bool:
        return table_id != table.table_id and ctx.tables[table_id].header != table.header

    chosen = None
    for _ in range(min(TRIES, len(ids))):
        drawn = ids[int(ctx.rng.integers(len(ids)))]
        if other(drawn):
            chosen = drawn
            break
    if chosen is None:
        others = [t for t in ids if other(t)]
        if not others:
            raise NotApplicable("the split has no other table with another header")
        chosen = others[int(ctx.rng.integers(len(others)))]
    swapped = ctx.tables[chosen]
    return [
        ProbeExample(example.hypothesis, swapped, example.label, {"premise": "swapped", "from_table": swapped.table_id})
    ]


PROBE = Probe(
    name="tf_swapped_table",
    description="TabFact: the premise of another table of the split with another header (scored against the gold label).",
    apply=apply,
    judged_by="expected",
    paper_reference="InfoTabS paper Table 4, on TabFact",
    labels=frozenset({"E", "C"}),
    family="premise_control",
    invariants=(HYPOTHESIS_KEPT, RELATIONAL_PREMISE_REPLACED, HEADER_DIFFERS),
    datasets=("tabfact",),
)
