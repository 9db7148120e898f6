"""What the rules of report.smk plan with, from a checked config: every file of the run that the
results table (collect_results) and the report (assemble_report) read, by kind. The jobs get
{name: path} mappings beside them (derived.inference_stats, derived.relevance_summaries, ...),
never a name to read back out of a path. Every path comes from tabprobe.layout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe import layout
from tabprobe.config.derived import (
    inference_stats,
    model_runs,
    pooled_model_runs,
    probe_runs,
    relevance_summaries,
    showcase,
)
from tabprobe.config.inoculation_inputs import (
    inoculation_outputs,
    inoculation_summaries,
    variance_outputs,
    variance_summaries,
)


def results_inputs(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """collect_results's inputs: the scores of every model's probe runs, of the pooled columns of
    the models that answer their probes, and the experiments' score tables; each inference's
    statistics, each probe run's coverage, each relevance summary."""
    experiments = [p for p in inoculation_outputs(config) + variance_outputs(config) if p.endswith(".parquet")]
    return {
        "scores": [layout.scores(m, p, s) for m, p, s in model_runs(config)]
        + [layout.pooled_scores(t, m, c, s) for t, m, c, s in pooled_model_runs(config)]
        + experiments,
        "stats": [path for paths in inference_stats(config).values() for path in paths],
        "coverage": [layout.coverage(p, s) for p, s in probe_runs(config)],
        "relevance": list(relevance_summaries(config).values()),
    }


def report_inputs(config: Mapping[str, Any]) -> dict[str, Any]:
    """assemble_report's inputs: the results table and run record, each probe run's coverage, the
    relevance summaries, the files the failing examples are drawn from (derived.showcase), and
    the experiments' summaries."""
    return {
        "results": layout.results_table(),
        "run": layout.run_record(),
        "coverage": [layout.coverage(p, s) for p, s in probe_runs(config)],
        "relevance": list(relevance_summaries(config).values()),
        "showcase": sorted({f for entry in showcase(config).values() for f in entry["files"].values()}),
        "inoculation": list(inoculation_summaries(config).values()),
        "variance": list(variance_summaries(config).values()),
    }
