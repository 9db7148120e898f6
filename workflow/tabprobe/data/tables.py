"""Either dataset's tables, read and rendered by their type: the one place where code that runs on
any dataset (probe generation, inference, training) turns a Parquet table into InfoTabS's Table or
TabFact's RelationalTable and a table into premise text. Each dataset keeps its own table type and
renderings (data/<dataset>/); this module only dispatches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infotabs import render as infobox_render
from tabprobe.data.infotabs.reading import load_tables as load_infoboxes
from tabprobe.data.infotabs.table import Table
from tabprobe.data.tabfact import render as relational_render
from tabprobe.data.tabfact.table import RelationalTable

AnyTable = Table | RelationalTable


def load_tables(tables: pa.Table) -> dict[str, AnyTable]:
    """table id -> table, from a split's tables file of either contract (schemas.ANY_TABLES)."""
    if tables.schema.equals(schemas.RELATIONAL_TABLES, check_metadata=False):
        return {record["table_id"]: RelationalTable.from_arrow(record) for record in tables.to_pylist()}
    return load_infoboxes(tables)


def table_from_arrow(record: Mapping[str, Any]) -> AnyTable:
    """A probe example's table (its `table` struct) as its type: a relational one has a header."""
    return RelationalTable.from_arrow(record) if "header" in record else Table.from_arrow(record)


def probe_examples_schema(tables: Mapping[str, AnyTable]) -> pa.Schema:
    """The probe-file contract whose table struct holds these tables (InfoTabS's when there are none)."""
    relational = any(isinstance(t, RelationalTable) for t in tables.values())
    return schemas.RELATIONAL_PROBE_EXAMPLES if relational else schemas.PROBE_EXAMPLES


def render(table: AnyTable, how: str) -> str:
    """The premise text of `table` in rendering `how`, by its dataset's renderings."""
    if isinstance(table, RelationalTable):
        return relational_render.render(table, how)
    return infobox_render.render(table, how)
