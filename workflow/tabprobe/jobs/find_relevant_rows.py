"""Rule find_relevant_rows: which rows each hypothesis needs (annotations or the aligner)."""

from __future__ import annotations

import logging

from .. import infotabs, relevance, schemas
from ..io import read_parquet, write_json, write_parquet

log = logging.getLogger(__name__)


def find_relevant_rows(
    examples_path: str, tables_path: str, out: str, summary_out: str, source: str, annotations_path: str | None = None
) -> None:
    examples = read_parquet(examples_path, schemas.EXAMPLES)
    tables = infotabs.load_tables(read_parquet(tables_path, schemas.TABLES))
    found, summary = relevance.relevance_table(examples, tables, source, annotations_path)
    write_parquet(found, out, schemas.RELEVANCE)
    write_json(summary, summary_out)
    log.info(
        "relevance (%s): %d of %d examples have relevant rows",
        summary["source"],
        summary["with_relevant_rows"],
        summary["examples"],
    )
