"""The relational table type (a caption, a header and records): the table (table.py), its
renderings (render.py), and the type a dataset names (`RELATIONAL`)."""

from tabprobe.data.relational import render, table
from tabprobe.data.table_type import TableType

RELATIONAL = TableType(
    name="relational",
    cls=table.RelationalTable,
    struct=table.RELATIONAL_TABLE,
    tables=table.RELATIONAL_TABLES,
    probe_examples=table.RELATIONAL_PROBE_EXAMPLES,
    renderings=render.RENDERINGS,
    render=render.render,
)
