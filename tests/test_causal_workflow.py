"""End to end with a prompted causal LM: the real workflow on a slice of the real InfoTabS, a
tiny Llama-shaped model built here (2 shots from train, contextual calibration, multi-token
verbalisers, the markdown rendering), through probes, scores and the report."""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np
import pytest
import yaml
from test_workflow_e2e import jobs, planned_jobs, snakemake
from tiny_causal import tiny_causal
from workflow_copy import copy_workflow, slice_config

from tabprobe import layout, schemas
from tabprobe.io import read_parquet

pytestmark = pytest.mark.e2e
PROBES = {
    "original": {},
    # More examples than the slice holds: the report must say its rows decide nothing (report.power).
    "row_deletion": {"min_examples": 100},
    "negation_flip": {},
    "dummy_premise": {},
}
VERBALISERS = {"E": "entailed", "N": "unknown", "C": "refuted"}


def causal_model(checkpoint, **prompt):
    return {
        "causal": {"checkpoint": str(checkpoint), "verbalisers": VERBALISERS, **prompt},
        "premise": "markdown",
        "max_length": 512,
        "batch_size": 8,
    }


@pytest.fixture(scope="module")
def causal_run(tmp_path_factory, shared_infotabs):
    workdir = copy_workflow(tmp_path_factory.mktemp("causal-workflow"))
    checkpoint = tiny_causal(workdir / "lm", "llama")
    configfile = slice_config(
        workdir,
        "causal",
        infotabs_dir=str(shared_infotabs),
        max_examples=24,
        min_examples=20,  # the 24 examples of `original` pass it
        probes=PROBES,
        models={"tiny-lm": causal_model(checkpoint, shots=2, calibrate=True)},
    )
    config = yaml.safe_load(configfile.read_text())
    snakemake(workdir, configfile, "--cores", "2")
    return {"dir": workdir, "config": config, "configfile": configfile, "checkpoint": checkpoint}


def test_shots_come_from_train_label_by_label(causal_run):
    shots = json.loads((causal_run["dir"] / layout.shots("tiny-lm")).read_text())
    assert [s["label"] for s in shots] == ["E", "N"]
    assert all(s["uid"].startswith("train:") and s["table"]["rows"] for s in shots)


def test_a_causal_models_predictions_are_written_like_a_classifiers(causal_run):
    root = causal_run["dir"]
    for probe in PROBES:
        predictions = read_parquet(root / layout.predictions("tiny-lm", probe, "alpha1"), schemas.PREDICTIONS)
        probs = np.array(predictions["probs"].to_pylist())
        assert len(probs) > 0 and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
        stats = json.loads((root / layout.inference_stats("tiny-lm", probe, "alpha1")).read_text())
        assert stats["causal"]["shots"] == 2 and stats["causal"]["verbalisers"] == VERBALISERS
        assert set(stats["causal"]["calibrated_priors"]) == {"E", "N", "C"}
        # "entailed" and the rest are several tokens for the tiny tokenizer: scored as sums.
        assert max(len(t) for t in stats["causal"]["verbaliser_tokens"].values()) > 1
    # Each probe was scored against `original` like any model's.
    scores = read_parquet(root / layout.scores("tiny-lm", "row_deletion", "alpha1"), schemas.SCORES)
    assert scores.num_rows > 0


def test_the_report_says_how_the_causal_model_was_prompted(causal_run):
    markdown = (causal_run["dir"] / "results" / "report" / "report.md").read_text()
    assert "prompted causal LM, 2-shot; label likelihood of E 'entailed' / N 'unknown' / C 'refuted'" in markdown
    assert "contextual calibration (content-free priors E " in markdown
    assert "A prompted causal LM is not fine-tuned" in markdown


def test_a_probe_below_its_minimum_n_decides_nothing_in_the_real_report(causal_run):
    """Config to run.json to report: row_deletion's own minimum (100) is over the examples it has, so
    its rows say so and the coverage table sets its n beside 100; `original` (24 of 20) reads as ever."""
    root = causal_run["dir"]
    record = json.loads((root / layout.run_record()).read_text())
    assert record["min_examples"] == {
        "default": 20,
        "probes": {"original": 20, "row_deletion": 100, "negation_flip": 20, "dummy_premise": 20},
    }
    markdown = (root / "results" / "report" / "report.md").read_text()
    n = read_parquet(root / layout.scores("tiny-lm", "row_deletion", "alpha1"), schemas.SCORES)["n"].to_pylist()
    too_few = f"too few examples (n={max(n)}, minimum 100)"
    assert too_few in markdown.split("## Evidence selection")[1]
    coverage = markdown.split("## Probe coverage")[1]
    assert re.search(
        rf"\| row_deletion \| alpha1 \| 24 \| \d+ \| \d+ \| {max(n)}: too few examples, decides nothing \| 100 \|",
        coverage,
    )
    assert re.search(r"\| original \| alpha1 \| 24 \| \d+ \| 24 \| 24 \| 20 \|", coverage)
    accuracy = markdown.split("## Accuracy on the unperturbed splits")[1].split("\n## ")[0]
    assert "n=24" in accuracy and "too few" not in accuracy


def test_the_model_server_and_the_job_itself_give_the_same_bytes(causal_run):
    """The run's predictions came from the model's server; a job that loads the model itself
    writes the same bytes."""
    path = causal_run["dir"] / layout.predictions("tiny-lm", "original", "alpha1")
    served = path.read_bytes()
    assert "model_server" in os.listdir(causal_run["dir"] / "logs")
    snakemake(
        causal_run["dir"],
        causal_run["configfile"],
        "--cores",
        "1",
        "--forcerun",
        "infer_nli",
        "--until",
        str(path.relative_to(causal_run["dir"])),
        env={**os.environ, "TABPROBE_MODEL_SERVER": "0"},
    )
    assert path.read_bytes() == served
    snakemake(causal_run["dir"], causal_run["configfile"], "--cores", "2")  # what follows from it, again


def test_adding_a_causal_model_schedules_only_its_jobs(causal_run, tmp_path):
    config = dict(causal_run["config"])
    second = tmp_path / "lm2"
    shutil.copytree(causal_run["checkpoint"], second)
    config["models"] = {**config["models"], "tiny-lm-0shot": causal_model(second)}
    configfile = causal_run["dir"] / "more.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=True))
    assert planned_jobs(causal_run["dir"], causal_run["configfile"]) == []
    plan = planned_jobs(causal_run["dir"], configfile)
    runs = [f"model=tiny-lm-0shot, probe={p}, split=alpha1" for p in PROBES]
    # negation_flip is the one member of paper Table 4's label-flipped column here.
    table4 = ["paper_table=table4, model=tiny-lm-0shot, column=label_flipped, split=alpha1"]
    expected = (
        jobs("infer_nli", runs)
        + jobs("score_probe", runs)
        + jobs("score_pooled_column", table4)
        + [("collect_results", ""), ("assemble_report", ""), ("all", "")]
    )
    assert plan == sorted(expected)  # no shots for a zero-shot model
