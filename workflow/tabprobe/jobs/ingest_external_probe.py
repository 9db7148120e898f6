"""Rule ingest_external_probe: an external probe set in InfoTabS format, read as it is."""

from __future__ import annotations

import logging

from .. import external, schemas
from ..io import read_parquet, write_json, write_parquet

log = logging.getLogger(__name__)


def ingest_external_probe(
    probe: str,
    split: str,
    folder: str,
    examples_path: str,
    out: str,
    coverage_out: str,
    original_path: str | None = None,
) -> None:
    """`original_path`: the `original` probe's examples of the split, when it runs there: paired
    lines whose gold example it left out (its cap) are counted, as the paired drop cannot use them."""
    probe_examples, coverage = external.read_external_set(
        folder, probe, split, read_parquet(examples_path, schemas.EXAMPLES)
    )
    if original_path:
        originals = set(read_parquet(original_path, schemas.PROBE_EXAMPLES)["orig_uid"].to_pylist())
        outside = sum(
            1
            for uid, orig in zip(probe_examples["uid"].to_pylist(), probe_examples["orig_uid"].to_pylist())
            if uid != orig and orig not in originals
        )
        if outside:
            coverage["skipped"][
                f"scored, but its gold example is outside `original`'s {len(originals)} (its cap): "
                "not in the paired drop"
            ] = outside
    write_parquet(probe_examples, out, schemas.PROBE_EXAMPLES)
    write_json({"split": split, "limit": None, **coverage}, coverage_out)
    log.info(
        "%s: %d examples from %s (%s)", probe, probe_examples.num_rows, folder, coverage["skipped"] or "all paired"
    )
