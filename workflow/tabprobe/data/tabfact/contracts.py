"""TabFact's own Parquet contract beside the table type's (data/relational/table.py): the
human-written programs of the bootstrap split."""

import pyarrow as pa

# results/data/tabfact/bootstrap.programs.parquet: the human-written programs (bootstrap.json) kept for
# the examples of the bootstrap split, and the evidence each read on the original table
PROGRAMS = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),  # the example's uid
        pa.field("program", pa.string(), nullable=False),  # as written, with its `=True` suffix
        pa.field("records_read", pa.list_(pa.int64()), nullable=False),
        pa.field("columns_read", pa.list_(pa.string()), nullable=False),
    ]
)
