"""Row edits shared by the table probes (paper section 5.1 and appendix).

Each returns the edited table and a JSON-able record of the change for the provenance column.
Candidates are gathered in a fixed order (tables sorted by id) so a seeded choice repeats.
"""

from __future__ import annotations

import numpy as np

from ..table import Table
from .base import NotApplicable


def _norm(key: str) -> str:
    return key.strip().lower()


def delete_row(table: Table, rng: np.random.Generator) -> tuple[Table, dict]:
    if not table.rows:
        raise NotApplicable("table has no rows")
    index = int(rng.integers(len(table.rows)))
    row = table.rows[index]
    kept = table.with_rows(r for j, r in enumerate(table.rows) if j != index)
    return kept, {"deleted_row": {"index": index, "key": row.key, "values": list(row.values)}}


def insert_new_key_row(table: Table, tables: dict[str, Table], rng: np.random.Generator,
                       exclude_keys: set[str] | None = None, accept=None) -> tuple[Table, dict]:
    """Insert, at a random position, a row whose key the table lacks, taken from another table of
    the same category: a key it does not have cannot contradict what it says. `accept(row)`
    narrows the candidate rows (e.g. to numeric ones)."""
    if table.category is None:
        raise NotApplicable("table has no category to draw same-category rows from")
    own = {_norm(k) for k in table.keys} | (exclude_keys or set())
    candidates = [
        (other.table_id, row)
        for other_id in sorted(tables)
        if (other := tables[other_id]).table_id != table.table_id and other.category == table.category
        for row in other.rows
        if _norm(row.key) not in own and row.key.strip() and (accept is None or accept(row))
    ]
    if not candidates:
        raise NotApplicable("no same-category table has a key this table lacks")
    source_id, row = candidates[int(rng.integers(len(candidates)))]
    position = int(rng.integers(len(table.rows) + 1))
    rows = list(table.rows)
    rows.insert(position, row)
    return table.with_rows(rows), {
        "inserted_row": {"index": position, "key": row.key, "values": list(row.values), "from_table": source_id}
    }
