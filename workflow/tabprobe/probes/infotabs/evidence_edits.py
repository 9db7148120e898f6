"""Helpers of the probes that read which rows a hypothesis needs (paper sections 5.2, 5.3, 6):
relevant rows by index, deletions, and the tables of counterfactuals (how a hypothesis names its
subject is probes/infotabs/titles.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.base import Example, NotApplicable, ProbeContext
from tabprobe.seeding import seeded_rng


def relevant_indices(example: Example, table: Table, ctx: ProbeContext) -> list[int]:
    """Indices of the rows the relevance source names for this example (every row with a named
    key: a few tables repeat a key). NotApplicable when it names none."""
    keys = set(ctx.need("relevance")[example.uid])
    indices = [i for i, row in enumerate(table.rows) if row.key in keys]
    if not indices:
        raise NotApplicable("the relevance source names no row of the table")
    return indices


def without_rows(table: Table, indices: set[int]) -> Table:
    return table.with_rows(r for i, r in enumerate(table.rows) if i not in indices)


def describe_rows(table: Table, indices) -> list[dict]:
    return [{"index": i, "key": table.rows[i].key, "values": list(table.rows[i].values)} for i in indices]


# ---------------------------------------------------------------- counterfactual tables


def with_title(table: Table, title: str, table_id: str) -> Table:
    return replace(table, title=title, table_id=table_id)


def swap_rows_in(target: Table, source: Table, keys: set[str]) -> Table:
    """`target` with the values of its rows named in `keys` taken from `source`'s rows of the
    same key (the first row of each key)."""
    donor = {}
    for row in source.rows:
        donor.setdefault(row.key, row.values)
    return target.with_rows(Row(r.key, donor[r.key]) if r.key in keys and r.key in donor else r for r in target.rows)


def pair_tables(
    tables: Mapping[str, Table],
    seed: int,
    name: str,
    group: Callable[[Table], str] = lambda table: table.category or "",
) -> dict[str, str]:
    """Each table's partner from its own `group` (default: its category), pairs mutual: the
    group's tables are shuffled (seeded) and paired in turn; with an odd count, the last one
    takes the first one's partner one way only; a table alone in its group has none."""
    rng = seeded_rng(seed, name, "pairs")
    groups: dict[str, list[str]] = {}
    for table_id in sorted(tables):
        groups.setdefault(group(tables[table_id]), []).append(table_id)
    partner: dict[str, str] = {}
    for key in sorted(groups):
        ids = [groups[key][i] for i in rng.permutation(len(groups[key]))]
        for a, b in zip(ids[::2], ids[1::2]):
            partner[a], partner[b] = b, a
        if len(ids) % 2 and len(ids) > 1:
            partner[ids[-1]] = ids[1]
    return partner
