"""The in-memory table: an InfoTabS infobox as a title and ordered key/value rows.

Immutable on purpose: probes build new tables instead of editing shared ones, so one
probe can never leak a change into another example.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any


def normalised(text: str) -> str:
    """How keys and values are compared: case and runs of whitespace ignored ("Density  (at STP)"
    is "density (at stp)"), since InfoTabS spells the same key or value several ways."""
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
        """The dict form that matches `schemas.TABLE`."""
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
