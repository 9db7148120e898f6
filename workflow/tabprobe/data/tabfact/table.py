"""The in-memory relational table of TabFact: a caption, a header and records (rows of cells,
one per column), as the dataset's files hold them (lower-cased, tokenised).

Immutable on purpose, as InfoTabS's Table: probes build new tables instead of editing shared
ones. A record is addressed by its index; `source_records` keeps, for every record, the index it
had in the original table (None for a record a probe inserted), so a program's evidence (record
indices of the original) can be followed through deletions and permutations. Its Parquet form is
schemas.RELATIONAL_TABLE (every contract lives in schemas.py, the floor below the datasets).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# Re-exported for code that reads the table's Parquet form beside the table (the struct lives in schemas.py).
from tabprobe.schemas import RELATIONAL_TABLE, RELATIONAL_TABLE_FIELDS  # noqa: F401


@dataclass(frozen=True)
class RelationalTable:
    table_id: str
    title: str
    header: tuple[str, ...]
    records: tuple[tuple[str, ...], ...]
    source_records: tuple[int | None, ...] = field(default=())

    def __post_init__(self):
        if not self.source_records and self.records:
            object.__setattr__(self, "source_records", tuple(range(len(self.records))))
        if len(self.source_records) != len(self.records):
            raise ValueError(f"{self.table_id}: {len(self.records)} records but {len(self.source_records)} sources")
        width = len(self.header)
        for i, record in enumerate(self.records):
            if len(record) != width:
                raise ValueError(f"{self.table_id}: record {i} has {len(record)} cells, the header {width}")

    def column(self, name: str) -> int:
        """The index of the column named `name` (the first, where a header repeats a name)."""
        return self.header.index(name)

    def with_records(self, records: Iterable[Sequence[str]], sources: Iterable[int | None]) -> RelationalTable:
        return replace(self, records=tuple(tuple(r) for r in records), source_records=tuple(sources))

    def with_columns(self, order: Sequence[int]) -> RelationalTable:
        """The same records with their columns in `order` (indices into the header)."""
        return replace(
            self,
            header=tuple(self.header[i] for i in order),
            records=tuple(tuple(record[i] for i in order) for record in self.records),
        )

    def to_arrow(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "title": self.title,
            "header": list(self.header),
            "records": [list(r) for r in self.records],
            "source_records": list(self.source_records),
        }

    @classmethod
    def from_arrow(cls, record: dict[str, Any]) -> RelationalTable:
        return cls(
            table_id=record["table_id"],
            title=record["title"],
            header=tuple(record["header"]),
            records=tuple(tuple(r) for r in record["records"]),
            source_records=tuple(record["source_records"]),
        )
