"""Rule collect_results: every score of the run in one table, and the run record."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import results
from ..config import external_probes
from ..io import read_json
from ..probes import register_externals

log = logging.getLogger(__name__)


def collect_results(
    score_paths: Sequence[str],
    inference_stats: Mapping[str, Sequence[str]],
    coverage_paths: Sequence[str],
    relevance_summaries: Mapping[str, str],
    parquet_out: str,
    csv_out: str,
    run_out: str,
    config: Mapping[str, Any],
) -> None:
    """Every score of the run into the results table (.parquet and .csv) and the run record.
    `score_paths`: the per-probe, pooled, inoculation and controlled-variance score files;
    `inference_stats`: model -> infer_nli's stats files; `relevance_summaries`: split ->
    find_relevant_rows's summary."""
    # The run record says who made each probe's examples, an external set's too.
    register_externals(external_probes(config))
    models = results.model_facts(inference_stats)
    table = results.collect(score_paths, {m: info["premise"] for m, info in models.items()})
    results.write(table, parquet_out, csv_out)
    record = results.run_record(
        config,
        models,
        [read_json(p) for p in coverage_paths],
        {split: read_json(p) for split, p in relevance_summaries.items()},
        code_folder=Path(__file__).resolve().parent.parent,
    )
    results.write_run_record(record, run_out)
    log.info(
        "results: %d scores of %d models in %s and %s; run record %s (commit %s)",
        table.height,
        table["model"].n_unique(),
        parquet_out,
        csv_out,
        run_out,
        (record["commit"] or {}).get("sha", "unknown: not a git checkout"),
    )
