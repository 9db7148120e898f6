"""The infobox table type: a title and ordered key -> values rows (a Wikipedia infobox), in
memory and in Parquet (`TABLE`, a struct; `TABLES`, a split's tables file; `PROBE_EXAMPLES`, a probe
file of infobox tables). A dataset whose tables are infoboxes names this type (data/datasets.py).

Immutable on purpose: probes build new tables instead of editing shared ones, so one
probe can never leak a change into another example.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from tabprobe import schemas

ROW = pa.struct([pa.field("key", pa.string(), nullable=False), pa.field("values", pa.list_(pa.string()))])
TABLE_FIELDS = [
    pa.field("table_id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("rows", pa.list_(ROW), nullable=False),
    # Null when the dataset gives no category for the table.
    pa.field("category", pa.string()),
]
TABLE = pa.struct(TABLE_FIELDS)
# results/data/{split}.tables.parquet of an infobox dataset
TABLES = pa.schema(TABLE_FIELDS)
# results/probes/{probe}/{split}.parquet of an infobox dataset's probe
PROBE_EXAMPLES = schemas.probe_examples(TABLE)


def normalised(text: str) -> str:
    """How keys and values are compared: case and runs of whitespace ignored ("Density  (at STP)"
    is "density (at stp)"), since infoboxes spell the same key or value several ways."""
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class Row:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    table_id: str
    title: str
    rows: tuple[Row, ...]
    category: str | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(row.key for row in self.rows)

    def with_rows(self, rows: Iterable[Row]) -> Table:
        return replace(self, rows=tuple(rows))

    def to_arrow(self) -> dict[str, Any]:
        """The dict form that matches `TABLE`."""
        return {
            "table_id": self.table_id,
            "title": self.title,
            "rows": [{"key": r.key, "values": list(r.values)} for r in self.rows],
            "category": self.category,
        }

    @classmethod
    def from_arrow(cls, record: dict[str, Any]) -> Table:
        return cls(
            table_id=record["table_id"],
            title=record["title"],
            rows=tuple(Row(r["key"], tuple(r["values"])) for r in record["rows"]),
            category=record["category"],
        )


def load_tables(tables: pa.Table) -> dict[str, Table]:
    """table id -> table, from a split's tables file (`TABLES`)."""
    return {record["table_id"]: Table.from_arrow(record) for record in tables.to_pylist()}
