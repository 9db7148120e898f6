"""Premise control (Gupta et al., 2020, Table 4): the premise is another table of the split, drawn
with the example's seeded generator. Accuracy against the gold label near the hypothesis-only
level means the model's answers do not depend on which table it reads.

"Another table" is one that could not decide the example the same way, by table type: an infobox
of another subject with other rows (a dataset may hold two tables of one subject, two "Karen
Gillan" infoboxes), a relational table under another header (one of the same header may be the
same kind of table, of the same season's next week). Among a relational dataset's many tables a few
draws find one; an infobox is drawn from the list of the others."""

from dataclasses import dataclass

from tabprobe.data.infobox.table import normalised
from tabprobe.probes.base import (
    WRONG_TABLE,
    Example,
    NotApplicable,
    Probe,
    ProbeContext,
    ProbeExample,
    Role,
    SharedProbe,
)
from tabprobe.probes.invariants import HEADER_DIFFERS, HYPOTHESIS_KEPT, PREMISE_REPLACED, RELATIONAL_PREMISE_REPLACED


@dataclass(frozen=True)
class Swap:
    differs: object  # (table, other) -> whether `other` may stand in for `table`
    tries: int  # tables drawn at random before the list of every other is made (0: the list at once)
    none_left: str  # why an example is skipped whose split has no such table
    invariants: tuple


def _other_subject(table, other) -> bool:
    return (
        other.table_id != table.table_id
        and normalised(other.title) != normalised(table.title)
        and other.rows != table.rows
    )


def _other_header(table, other) -> bool:
    return other.table_id != table.table_id and other.header != table.header


SWAPS = {
    "infobox": Swap(
        _other_subject, 0, "the split has no other table of another subject", (HYPOTHESIS_KEPT, PREMISE_REPLACED)
    ),
    "relational": Swap(
        _other_header,
        20,
        "the split has no other table with another header",
        (HYPOTHESIS_KEPT, RELATIONAL_PREMISE_REPLACED, HEADER_DIFFERS),
    ),
}


def make(dataset, name: str) -> Probe:
    swap = SWAPS[dataset.table_type.name]

    def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
        ids = ctx.shared.get(f"{name}:ids")
        if ids is None:  # the split's table ids, sorted, built once per split
            ids = ctx.shared[f"{name}:ids"] = sorted(ctx.tables)
        chosen = None
        for _ in range(min(swap.tries, len(ids))):
            drawn = ids[int(ctx.rng.integers(len(ids)))]
            if swap.differs(table, ctx.tables[drawn]):
                chosen = drawn
                break
        if chosen is None:
            others = [t for t in ids if swap.differs(table, ctx.tables[t])]
            if not others:
                raise NotApplicable(swap.none_left)
            chosen = others[int(ctx.rng.integers(len(others)))]
        other = ctx.tables[chosen]
        return [
            ProbeExample(example.hypothesis, other, example.label, {"premise": "swapped", "from_table": other.table_id})
        ]

    return Probe(
        name=name,
        verdict_role=Role(WRONG_TABLE, "another table", scorecard="drop with another table"),
        description="The premise of a random other table of the split (scored against the gold label).",
        apply=apply,
        judged_by="expected",
        paper_reference="Gupta et al. (2020) Table 4",
        labels=frozenset(dataset.labels),
        family="premise_control",
        invariants=swap.invariants,
        datasets=(dataset.name,),
    )


SHARED = SharedProbe(name="swapped_table", table_types=tuple(SWAPS), make=make)
