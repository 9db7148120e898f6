"""tabprobe.config.report_inputs: the files collect_results and assemble_report read, on configs
built here from config.yaml (and config.tabfact.yaml); no Snakemake."""

from __future__ import annotations

import pytest
from test_job_settings import tabfact_workflow_config, workflow_config

from tabprobe import layout
from tabprobe.config import derived, report_inputs
from tabprobe.data.datasets import get_dataset


@pytest.fixture(scope="module")
def with_tabfact():
    return tabfact_workflow_config()


def test_the_results_table_reads_every_score_statistic_coverage_and_relevance_file(with_tabfact):
    inputs = report_inputs.results_inputs(with_tabfact)
    assert list(inputs) == ["scores", "stats", "coverage", "relevance"]
    scores = inputs["scores"]
    runs = derived.model_runs(with_tabfact)
    assert scores[: len(runs)] == [layout.scores(m, p, s) for m, p, s in runs]
    pooled = [p for p in scores if p.startswith("results/pooled")]
    # Paper Tables 4 and 7 pool InfoTabS's probes: no column of TabFact's two-label models.
    assert pooled and not [p for p in pooled if "/tf-minilm" in p]
    assert layout.pooled_scores("table7", "minilm-hypo", "label_flipped", "alpha1") in pooled
    # The experiments' score tables, not their summaries (the report reads those).
    assert scores[-2:] == [
        layout.inoculation_scores("minilm-struct", "counterfactual"),
        layout.variance_scores("minilm-struct"),
    ]
    assert len(scores) == len(set(scores))
    assert inputs["stats"] == [layout.inference_stats(m, p, s) for m, p, s in runs]
    assert inputs["coverage"] == [layout.coverage(p, s) for p, s in derived.probe_runs(with_tabfact)]
    assert inputs["relevance"] == [layout.relevance_summary("alpha1")]


def test_without_experiments_the_results_table_reads_no_experiment_file():
    scores = report_inputs.results_inputs(workflow_config(inoculation=None, controlled_variance=None))["scores"]
    assert not [p for p in scores if p.startswith(("results/inoculation", "results/variance"))]


def test_the_report_reads_the_results_the_showcases_files_and_the_experiments_summaries(with_tabfact):
    inputs = report_inputs.report_inputs(with_tabfact)
    assert inputs["results"] == layout.results_table() and inputs["run"] == layout.run_record()
    files = {f for entry in derived.showcase(with_tabfact).values() for f in entry["files"].values()}
    assert inputs["showcase"] == sorted(files)
    assert get_dataset("tabfact").examples("simple_test") in inputs["showcase"]
    assert inputs["inoculation"] == [layout.inoculation_summary("minilm-struct", "counterfactual")]
    assert inputs["variance"] == [layout.variance_summary("minilm-struct")]
    assert inputs["coverage"] == report_inputs.results_inputs(with_tabfact)["coverage"]
