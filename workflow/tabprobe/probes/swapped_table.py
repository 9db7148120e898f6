"""Premise control (InfoTabS paper Table 4): the premise is another table of the split, drawn at
random. Accuracy against the gold label near the hypothesis-only level means the model's
answers do not depend on which table it reads."""

from tabprobe.data.infobox.table import Table, normalised
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, PREMISE_REPLACED


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    # Not a twin: InfoTabS has different tables of one subject (two "Karen Gillan" tables).
    others = [
        t
        for t in sorted(ctx.tables)
        if t != table.table_id
        and normalised(ctx.tables[t].title) != normalised(table.title)
        and ctx.tables[t].rows != table.rows
    ]
    if not others:
        raise NotApplicable("the split has no other table of another subject")
    other = ctx.tables[others[int(ctx.rng.integers(len(others)))]]
    return [
        ProbeExample(example.hypothesis, other, example.label, {"premise": "swapped", "from_table": other.table_id})
    ]


PROBE = Probe(
    name="swapped_table",
    description="The premise of a random other table of the split (scored against the gold label).",
    apply=apply,
    judged_by="expected",
    paper_reference="InfoTabS paper Table 4",
    family="premise_control",
    invariants=(HYPOTHESIS_KEPT, PREMISE_REPLACED),
)
