"""The relational table type: a caption, a header and records (rows of cells, one per column), in
memory and in Parquet (`RELATIONAL_TABLE`, a struct; `RELATIONAL_TABLES`, a split's tables file;
`RELATIONAL_PROBE_EXAMPLES`, a probe file of relational tables). A dataset whose tables are
relational names this type (data/datasets.py).

Immutable on purpose, as the infobox Table: probes build new tables instead of editing shared
ones. A record is addressed by its index; `source_records` keeps, for every record, the index it
had in the original table (None for a record a probe inserted), so a program's evidence (record
indices of the original) can be followed through deletions and permutations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa

from tabprobe import schemas

RELATIONAL_TABLE_FIELDS = [
    pa.field("table_id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),  # the caption (NO_CAPTION where there is none)
    pa.field("header", pa.list_(pa.string()), nullable=False),
    pa.field("records", pa.list_(pa.list_(pa.string())), nullable=False),
    # Where each record stood in the original table; null for a record a probe inserted.
    pa.field("source_records", pa.list_(pa.int64()), nullable=False),
]
RELATIONAL_TABLE = pa.struct(RELATIONAL_TABLE_FIELDS)
# results/data/<dataset>/{split}.tables.parquet of a relational dataset
RELATIONAL_TABLES = pa.schema(RELATIONAL_TABLE_FIELDS)
# results/probes/{probe}/{split}.parquet of a relational dataset's probe: the table column relational
RELATIONAL_PROBE_EXAMPLES = schemas.probe_examples(RELATIONAL_TABLE)
# The caption of a table that has none (as the files of a dataset may write it): a rendering leaves it out.
NO_CAPTION = "none"


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
