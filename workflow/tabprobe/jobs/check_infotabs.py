"""Rule check_infotabs: read and validate a raw split before ingest replaces anything."""

from __future__ import annotations

import logging

from .. import download, infotabs, logs
from ..io import write_json

log = logging.getLogger(__name__)


def check_infotabs(root: str, split: str, out: str, on_duplicate: str = "warn", verify: bool = True) -> None:
    """Read and validate a split without writing its results: bad input stops here, before the
    results of an earlier ingest are touched. `out` records what was checked."""
    if verify:
        download.verify(root)
    ingested = infotabs.ingest_split(root, split, on_duplicate=on_duplicate)
    write_json(
        {
            "split": split,
            "source": str(root),
            "examples": ingested.examples.num_rows,
            "tables": ingested.tables.num_rows,
        },
        out,
    )
    log.info(
        "%s: %d examples over %d tables are well formed", split, ingested.examples.num_rows, ingested.tables.num_rows
    )
    if ingested.duplicate_lines:
        lines = ", ".join(f"{line} repeats {first}" for line, first, _ in ingested.duplicate_lines[:5])
        more = len(ingested.duplicate_lines) - 5
        log.warning(
            "%s: %d duplicate hypotheses kept (`duplicates: warn`; `error` refuses them): line %s%s",
            split,
            len(ingested.duplicate_lines),
            lines,
            f" and {more} more" if more > 0 else "",
            extra=logs.TERMINAL,
        )
