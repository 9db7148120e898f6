"""Rule collect_results: every score of the run in one table, and the run record."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import results
from ..io import read_json

log = logging.getLogger(__name__)


def collect_results(score_paths: Sequence[str], inference_stats: Sequence[str], coverage_paths: Sequence[str],
                    relevance_summaries: Sequence[str], parquet_out: str, csv_out: str, run_out: str,
                    config: Mapping[str, Any]) -> None:
    """Every score of the run into results/results.parquet and .csv, and results/run.json.
    `score_paths`: the per-probe, pooled, inoculation and controlled-variance score files;
    `inference_stats`: infer_nli's stats files (results/predictions/{model}/{probe}/{split}.json)."""
    models = results.model_facts(inference_stats)
    table = results.collect(score_paths, {m: info["premise"] for m, info in models.items()})
    results.write(table, parquet_out, csv_out)
    record = results.run_record(config, models, [read_json(p) for p in coverage_paths],
                                {Path(p).stem: read_json(p) for p in relevance_summaries},
                                code_folder=Path(__file__).resolve().parent.parent)
    results.write_run_record(record, run_out)
    log.info("results: %d scores of %d models in %s and %s; run record %s (commit %s)", table.height,
             table["model"].n_unique(), parquet_out, csv_out, run_out,
             (record["commit"] or {}).get("sha", "unknown: not a git checkout"))
