"""End to end with a served model: the real workflow on a slice of the real InfoTabS, a tiny random
Llama (tests/tiny_causal.py) served by `transformers serve`, which the workflow starts itself (the
model's `serve:` command, on a free port, in a private network: the machine must allow one, or the
config is refused), scored by generate, through probes, scores, run.json and the report's verdicts.
Then: the jobs ask for no GPU without a `serve:`; a probe added later asks the server only for its
own prompts; with the server gone, the run scores from the cache to the same bytes. (The key of a
server the workflow starts is the workflow's, and test_endpoint_private.py searches a run's files
for it; a key of the user's, api_key_env, test_endpoint_served.py.)"""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
import yaml
from served import transformers_serve_command
from test_workflow_e2e import jobs, planned_jobs, snakemake
from tiny_causal import tiny_causal
from workflow_copy import copy_workflow, slice_config

from tabprobe import layout, schemas
from tabprobe.io import read_parquet

pytestmark = pytest.mark.e2e
PROBES = {"original": {}, "row_deletion": {}, "dummy_premise": {}}
MODEL = "tiny-served"


def served_model(checkpoint, **keys) -> dict:
    command = " ".join(transformers_serve_command(checkpoint, "{port}"))
    return {
        "endpoint": {
            "base_url": "http://127.0.0.1:{port}/v1",
            "model": str(checkpoint),
            "api": "chat",
            "max_tokens": 3,
            "concurrency": 2,
            "serve": {"command": command, "gpus": 1},
            **keys,
        },
        "premise": "para",
    }


def env(**more) -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", **more}


@pytest.fixture(scope="module")
def served_run(tmp_path_factory, shared_infotabs):
    workdir = copy_workflow(tmp_path_factory.mktemp("served-workflow"))
    checkpoint = tiny_causal(workdir / "lm", "llama", answers=("true", "neither", "false"))
    configfile = slice_config(
        workdir,
        "served",
        infotabs_dir=str(shared_infotabs),
        max_examples=6,
        probes=PROBES,
        models={MODEL: served_model(checkpoint)},
    )
    snakemake(workdir, configfile, "--cores", "2", env=env())
    # `last`: the config of the last run (a test that adds a probe moves it on).
    return {"dir": workdir, "configfile": configfile, "checkpoint": checkpoint, "last": configfile}


def job_stats(root, probe):
    return json.loads((root / layout.inference_stats(MODEL, probe, "alpha1")).read_text())


def test_the_workflow_starts_the_server_once_and_the_report_gives_verdicts(served_run):
    root = served_run["dir"]
    serve_log = (root / "logs" / "serve" / f"{MODEL}.log").read_text()
    assert serve_log.count("starting: ") == 1 and "the server answers at http://127.0.0.1:" in serve_log
    assert "in a private network, through " in serve_log  # the default where the machine allows one
    for probe in PROBES:
        read_parquet(root / layout.predictions(MODEL, probe, "alpha1"), schemas.PREDICTIONS)
        answers = read_parquet(root / layout.served_answers(MODEL, probe, "alpha1"), schemas.SERVED_ANSWERS)
        assert answers.num_rows > 0
        assert job_stats(root, probe)["job"]["requests"] == answers.num_rows
    markdown = (root / "results" / "report" / "report.md").read_text()
    verdict = markdown.split("## Verdicts", 1)[1].split("\n## ", 1)[0]
    assert f"**{MODEL}" in verdict
    assert "scoring generate: the answer generated at temperature 0" in markdown
    assert "## Served models: requests and unparsed answers" in markdown
    assert re.search(r"\| `row_deletion` \| alpha1 \| \d+\.\d\d .*n=6", markdown)
    run = json.loads((root / layout.run_record()).read_text())
    served = run["models"][MODEL]
    assert served["endpoint"]["scoring"] == "generate" and served["endpoint"]["api"] == "chat"
    assert served["endpoint"]["server_access"] == "private network"
    assert set(served["endpoint_jobs"]) == {layout.probe_examples(p, "alpha1") for p in PROBES}
    assert served["endpoint_totals"]["requests"] == sum(j["requests"] for j in served["endpoint_jobs"].values())
    assert {"retries", "tokens_in", "tokens_out", "seconds", "unparsed", "cached"} <= set(served["endpoint_totals"])
    results = read_parquet(root / layout.results_table(), schemas.RESULTS)
    assert "unparsed_pct" in results.filter(pa_equal(results, "model", MODEL))["statistic"].to_pylist()


def pa_equal(table, column, value):
    import pyarrow.compute as pc

    return pc.equal(table[column], value)


def test_a_served_model_without_serve_asks_for_no_gpu_and_gets_its_shots(served_run):
    config = yaml.safe_load(served_run["configfile"].read_text())
    block = config["models"][MODEL]["endpoint"]
    block.pop("serve")
    block.update(base_url="http://127.0.0.1:9/v1", shots=2)
    configfile = served_run["dir"] / "no-serve.yaml"
    configfile.write_text(yaml.safe_dump(config))
    out = snakemake(served_run["dir"], configfile, "--dry-run", env=env()).stdout
    blocks = [b for b in re.split(r"\n(?=\[\w{3} )", out) if "rule query_endpoint:" in b]
    assert len(blocks) == len(PROBES) and all(re.search(r"resources: .*\bgpu=0\b", b) for b in blocks)
    # Its k-shot examples come from train, as a causal LM's do, and are an input of every job.
    assert "rule select_shots:" in out and all(layout.shots(MODEL) in b for b in blocks)


def test_an_added_probe_asks_only_for_its_own_prompts(served_run):
    root = served_run["dir"]
    config = yaml.safe_load(served_run["configfile"].read_text())
    config["probes"] = {**config["probes"], "row_permutation": {}}
    more = root / "more.yaml"
    more.write_text(yaml.safe_dump(config))
    plan = planned_jobs(root, more)
    assert [j for j in plan if j[0] == "query_endpoint"] == jobs(
        "query_endpoint", [f"model={MODEL}, probe=row_permutation, split=alpha1"]
    )
    snakemake(root, more, "--cores", "2", env=env())
    served_run["last"] = more
    stats = job_stats(root, "row_permutation")["job"]
    # Every edited hypothesis is a prompt of its own; none was asked before.
    assert stats["requests"] == stats["examples"] > 0 and stats["cached"] == 0


def test_with_the_server_gone_the_run_scores_from_the_cache_to_the_same_bytes(served_run, tmp_path):
    root = served_run["dir"]
    kept = {}
    for folder in ("predictions", "scores"):
        for path in sorted((root / "results" / folder).rglob("*.parquet")):
            kept[path] = path.read_bytes()
    kept[root / layout.results_table()] = (root / layout.results_table()).read_bytes()
    # The predictions gone, and what follows from them (Snakemake does not remake a missing file whose
    # followers are up to date).
    for gone in ("predictions", "scores", "pooled", "report"):
        shutil.rmtree(root / "results" / gone, ignore_errors=True)
    for gone in (layout.results_table(), layout.run_record()):
        (root / gone).unlink()
    # No server: the serve command is never started offline; every answer is in the cache.
    snakemake(root, served_run["last"], "--cores", "2", env=env(TABPROBE_ENDPOINT_OFFLINE="1"))
    changed = [str(path) for path, data in kept.items() if path.read_bytes() != data]
    assert len(kept) > 12 and changed == []
    for probe in PROBES:
        assert job_stats(root, probe)["job"]["requests"] == 0
