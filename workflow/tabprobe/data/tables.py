"""Any dataset's tables, read and rendered by their table type (data/table_type.py): the one place
where code that runs on any dataset (probe generation, inference, training) turns a Parquet table
into its in-memory table and a table into premise text. A dataset names its table type
(data/datasets.py); a file or a record shows its type by its columns, a table by its class."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from tabprobe.data.infobox import INFOBOX
from tabprobe.data.infobox.table import Table
from tabprobe.data.relational import RELATIONAL
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.table_type import TableType

AnyTable = Table | RelationalTable

# The table types a dataset may name, by name.
TABLE_TYPES: dict[str, TableType] = {t.name: t for t in (INFOBOX, RELATIONAL)}
_BY_CLASS = {t.cls: t for t in TABLE_TYPES.values()}
# What a stage that reads any dataset's tables accepts (io.read_parquet takes either).
TABLES_SCHEMAS = tuple(t.tables for t in TABLE_TYPES.values())
PROBE_EXAMPLES_SCHEMAS = tuple(t.probe_examples for t in TABLE_TYPES.values())


def table_type(name: str) -> TableType:
    if name not in TABLE_TYPES:
        raise KeyError(f"unknown table type {name!r}; the table types are {', '.join(TABLE_TYPES)}")
    return TABLE_TYPES[name]


def of_table(table: object) -> TableType:
    """The type of an in-memory table (each type declares its class)."""
    return _BY_CLASS[type(table)]


def load_tables(tables: pa.Table) -> dict[str, AnyTable]:
    """table id -> table, from a split's tables file of any table type (its columns say which)."""
    for kind in TABLE_TYPES.values():
        if tables.schema.equals(kind.tables, check_metadata=False):
            return kind.load_tables(tables)
    raise ValueError(f"a tables file of no known table type (columns {', '.join(tables.schema.names)})")


def table_from_arrow(record: Mapping[str, Any]) -> AnyTable:
    """A probe example's table (its `table` struct) as its type: the type whose struct has its fields."""
    fields = set(record)
    for kind in TABLE_TYPES.values():
        if fields == set(kind.struct.names):
            return kind.cls.from_arrow(record)
    raise ValueError(f"a table of no known table type (fields {', '.join(sorted(fields))})")


def render(table: AnyTable, how: str) -> str:
    """The premise text of `table` in rendering `how`, by its table type's renderings."""
    return of_table(table).render(table, how)
