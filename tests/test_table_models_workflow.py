"""End to end with the table-native models of issue 36: a TAPAS classifier that reads the table
itself (`premise: table`) and a TAPEX-style BART classifier (`premise: tapex`), tiny and random,
built here, through the real workflow on a slice of the real InfoTabS: probes, inference on each
model's own input, scores, and a report that gives each a verdict."""

from __future__ import annotations

import json
import re

import pytest
from test_workflow_e2e import snakemake
from tiny_bart import tiny_bart
from tiny_tapas import tiny_tapas
from workflow_copy import copy_workflow, slice_config

from tabprobe import layout, schemas
from tabprobe.io import read_parquet

pytestmark = pytest.mark.e2e
PROBES = {"original": {}, "hypothesis_only": {}, "row_deletion": {}, "negation_flip": {}}
MODELS = ("tiny-tapas", "tiny-bart")


@pytest.fixture(scope="module")
def table_models_run(tmp_path_factory, shared_infotabs):
    workdir = copy_workflow(tmp_path_factory.mktemp("table-models-workflow"))
    tapas = {"checkpoint": str(tiny_tapas(workdir / "tapas")), "premise": "table", "max_length": 256}
    bart = {"checkpoint": str(tiny_bart(workdir / "bart")), "premise": "tapex", "max_length": 256}
    configfile = slice_config(
        workdir,
        "table-models",
        infotabs_dir=str(shared_infotabs),
        max_examples=24,
        probes=PROBES,
        models={"tiny-tapas": tapas, "tiny-bart": dict(bart, pair_order="hypothesis_first")},
    )
    snakemake(workdir, configfile, "--cores", "2")
    return workdir


def test_each_model_answered_every_probe_on_its_own_kind_of_input(table_models_run):
    for model in MODELS:
        for probe in PROBES:
            stats = json.loads((table_models_run / layout.inference_stats(model, probe, "alpha1")).read_text())
            predictions = read_parquet(
                table_models_run / layout.predictions(model, probe, "alpha1"), schemas.PREDICTIONS
            )
            assert predictions.num_rows == stats["examples"] > 0
            assert stats["premise"] == ("table" if model == "tiny-tapas" else "tapex")


def test_the_report_gives_each_model_a_verdict(table_models_run):
    markdown = (table_models_run / layout.report_markdown()).read_text()
    for model in MODELS:
        # One verdict headline per model, in the verdicts section ("**<model> does not use its
        # table.**", "**Cannot tell whether <model> uses its table.**", ...).
        assert re.search(rf"^\*\*[^*\n]*\b{re.escape(model)}\b[^*\n]*\.\*\*$", markdown, flags=re.M), model
    scores = read_parquet(table_models_run / layout.results_table(), schemas.RESULTS).to_pylist()
    assert {r["model"] for r in scores if r["probe"] == "row_deletion"} == set(MODELS)
