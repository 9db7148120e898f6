"""The infobox table type (Wikipedia infoboxes: a title and key -> values rows): the table
(table.py), its renderings (render.py), and the type a dataset names (`INFOBOX`)."""

from tabprobe.data.infobox import render, table
from tabprobe.data.table_type import TableType

INFOBOX = TableType(
    name="infobox",
    cls=table.Table,
    struct=table.TABLE,
    tables=table.TABLES,
    probe_examples=table.PROBE_EXAMPLES,
    renderings=render.RENDERINGS,
    render=render.render,
)
