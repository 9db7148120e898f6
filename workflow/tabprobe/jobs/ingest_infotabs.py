"""Rule ingest_infotabs: a raw split into its examples and tables (Parquet)."""

from __future__ import annotations

import logging

from .. import download, infotabs, schemas
from ..io import write_json, write_parquet

log = logging.getLogger(__name__)


def ingest_infotabs(
    root: str,
    split: str,
    examples_out: str,
    tables_out: str,
    summary_out: str,
    on_duplicate: str = "warn",
    verify: bool = True,
) -> None:
    if verify:
        download.verify(root)
    ingested = infotabs.ingest_split(root, split, on_duplicate=on_duplicate)
    write_parquet(ingested.examples, examples_out, schemas.EXAMPLES)
    write_parquet(ingested.tables, tables_out, schemas.TABLES)
    write_json({"split": split, "source": str(root), **ingested.summary}, summary_out)
    log.info("%s: %d examples over %d tables", split, ingested.examples.num_rows, ingested.tables.num_rows)
