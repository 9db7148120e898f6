"""What a table type is (data/infobox/, data/relational/): the shape of a dataset's tables, shared by
the datasets whose tables have it. A dataset names its table type (data/datasets.py); the stages that
read any dataset's tables dispatch by it (data/tables.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pyarrow as pa

# The premise rendering that shows no table at all, every table type's (a model's `premise`: the
# hypothesis-only baseline).
HYPOTHESIS_ONLY = "hypothesis_only"


@dataclass(frozen=True)
class TableType:
    name: str  # "infobox", "relational"
    # The in-memory table the probes edit and the renderings read: a frozen dataclass with
    # `to_arrow()` and `from_arrow(record)`.
    cls: type
    struct: pa.StructType  # a table in Parquet (a probe example's `table` column)
    tables: pa.Schema  # a split's tables file
    probe_examples: pa.Schema  # a probe file of tables of this type
    # Premise renderings: name -> function(table) -> text (config: a model's `premise`).
    renderings: Mapping[str, Callable[[object], str]]
    # The premise text of a table in one rendering (every caller goes through it, so a perturbed
    # table is rendered exactly like an original one).
    render: Callable[[object, str], str]

    def load_tables(self, tables: pa.Table) -> dict[str, object]:
        """table id -> table, from a split's tables file of this type."""
        return {record["table_id"]: self.cls.from_arrow(record) for record in tables.to_pylist()}
