"""A user's own dataset without a fork (issue 44, docs/adding-a-dataset.md): Ledger, a package that
lives under tests/datasets/ (outside the library), named in config with its data folder. The
workflow checks and ingests it with its own jobs, runs its own probe and the shared ones its
infobox tables take, trains a tiny model on its two labels, scores it and writes its rows into the
results table and the report; nothing under workflow/ or rules/ names it."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest
import yaml
from test_workflow_e2e import planned_jobs, snakemake
from tiny_bert import tiny_bert
from workflow_copy import ROOT, copy_workflow, slice_config

from tabprobe import layout, schemas
from tabprobe.data.infobox.table import PROBE_EXAMPLES
from tabprobe.io import read_parquet

pytestmark = pytest.mark.e2e
PACKAGES = ROOT / "tests" / "datasets"
NAME = "ledger"
# Its own probe, and the shared ones (probes/shared/) registered for it under its prefix.
OWN_PROBE = "ledger_reverse_rows"
SHARED_PROBES = ["ledger_original", "ledger_hypothesis_only", "ledger_dummy_premise", "ledger_swapped_table"]
PROBES = [*SHARED_PROBES, OWN_PROBE]


def ledger_data(folder):
    """Eight ledgers (infoboxes) and TRUE/FALSE statements about their rows, in Ledger's own format."""
    folder.mkdir(parents=True)
    tables, lines = [], {"train": [], "dev": [], "test": []}
    for i in range(8):
        rows = [
            ["owner", [f"Person {i}"]],
            ["balance", [f"{100 + 17 * i} coins"]],
            ["opened", [f"{1990 + i}"]],
            ["branch", ["north" if i % 2 else "south"]],
        ]
        tables.append({"id": f"L{i}", "title": f"Account {i}", "rows": rows})
        statements = [
            (f"Account {i} holds {100 + 17 * i} coins.", "TRUE"),
            (f"Account {i} holds {200 + 17 * i} coins.", "FALSE"),
            (f"Account {i} was opened in {1990 + i}.", "TRUE"),
            (f"Account {i} was opened in {1980 + i}.", "FALSE"),
            (f"Account {i} is kept at the {'north' if i % 2 else 'south'} branch.", "TRUE"),
            (f"Account {i} is kept at the {'south' if i % 2 else 'north'} branch.", "FALSE"),
        ]
        split = "train" if i < 5 else ("dev" if i == 5 else "test")
        lines[split] += [{"table": f"L{i}", "statement": s, "label": label} for s, label in statements]
    lines["test"] += lines["dev"][:2]  # a test statement about a dev ledger: the ledger is read for both
    (folder / "tables.json").write_text(json.dumps(tables), encoding="utf-8")
    for split, records in lines.items():
        (folder / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("own-dataset"))
    data = ledger_data(workdir / "ledger-data")
    base = tiny_bert(workdir / "tiny-base", layers=1, max_positions=128)
    configfile = slice_config(
        workdir,
        "ledger",
        datasets={NAME: {"package": "ledger_dataset.dataset", "path": str(PACKAGES), "dir": str(data)}},
        max_examples=None,
        probes={name: {} for name in PROBES},
        models={
            "ledger-tiny": {
                "train": {"dataset": NAME, "base": str(base), "examples": 30, "dev_examples": 6, "batch_size": 8},
                "premise": "para",
                "max_length": 128,
                "batch_size": 16,
            }
        },
    )
    plan = planned_jobs(workdir, configfile)
    snakemake(workdir, configfile, "--cores", "2")
    results = pl.from_arrow(read_parquet(workdir / layout.results_table(), schemas.RESULTS))
    return {"dir": workdir, "configfile": configfile, "plan": plan, "results": results}


def test_its_own_check_and_ingest_rules_run_and_nothing_of_the_paper_dataset(run):
    rules = {rule for rule, _ in run["plan"]}
    assert {"check_ledger", "ingest_ledger"} <= rules
    assert not {"check_infotabs", "ingest_infotabs", "parse_hypotheses", "find_relevant_rows"} & rules
    ingested = {w for rule, w in run["plan"] if rule == "ingest_ledger"}
    assert ingested == {"split=test", "split=train", "split=dev"}  # its probes' split, and training's
    examples = read_parquet(run["dir"] / "results" / "data" / NAME / "test.parquet", schemas.EXAMPLES)
    assert examples.num_rows == 14 and set(examples["label"].to_pylist()) == {"E", "C"}
    assert (run["dir"] / "logs" / "ingest_ledger" / "test.log").is_file()


def test_its_probes_run_its_own_and_the_shared_ones_its_tables_take(run):
    generated = {w for rule, w in run["plan"] if rule == "generate_probe"}
    assert generated == {f"probe={p}, split=test" for p in PROBES}
    reversed_rows = read_parquet(run["dir"] / layout.probe_examples(OWN_PROBE, "test"), PROBE_EXAMPLES)
    first = reversed_rows.to_pylist()[0]
    assert [row["key"] for row in first["table"]["rows"]] == ["branch", "opened", "balance", "owner"]


def test_its_model_learns_its_two_labels_and_answers_its_probes(run):
    config = json.loads((run["dir"] / layout.trained_model("ledger-tiny") / "config.json").read_text())
    assert len(config["id2label"]) == 2
    predictions = read_parquet(
        run["dir"] / layout.predictions("ledger-tiny", "ledger_original", "test"), schemas.PREDICTIONS
    )
    assert predictions.num_rows == 14 and set(predictions["pred"].to_pylist()) <= {"E", "C"}


def test_results_hold_its_rows_under_its_name(run):
    results = run["results"]
    assert set(results["dataset"]) == {NAME}
    assert set(results["probe"]) == set(PROBES)
    accuracy = results.filter((pl.col("probe") == "ledger_original") & (pl.col("statistic") == "accuracy"))
    assert set(accuracy["label"]) == {"all", "E", "C"}  # two labels: no N, no "EC"
    transitions = results.filter((pl.col("probe") == OWN_PROBE) & (pl.col("statistic") == "invalid_transition_pct"))
    assert set(transitions["label"]) == {"all", "E", "C"}
    record = json.loads((run["dir"] / layout.run_record()).read_text())
    assert record["data"][NAME]["written_by"] == "tests/test_own_dataset.py"
    assert record["data"]["probes"]["ledger_original"]["made_by"] == "ledger_original"
    assert record["data"]["probes"][OWN_PROBE]["made_by"] == "ledger_machine"


def test_the_report_of_a_users_dataset(run):
    """The report's plan gives the user's dataset its own part (its ReportPart's title), with its
    verdicts read from the roles its probes declare, in its labels' names, and no part of the paper's
    dataset, whose rows the results do not have."""
    markdown = (run["dir"] / layout.report_markdown()).read_text()
    html = (run["dir"] / layout.report_html()).read_text()
    assert markdown.startswith("#") and "<html" in html
    assert "## Ledger: a dataset of your own" in markdown
    part = markdown.split("## Ledger: a dataset of your own")[1]
    assert "### Ledger verdicts: does each model use the evidence in its table?" in part
    verdicts = part.split("### Ledger verdicts")[1].split("\n### ")[0]
    assert "ledger-tiny" in verdicts
    # Its premise controls, found by the roles the shared probes declare, answer its first question.
    assert "table removed (`ledger_hypothesis_only`)" in verdicts or "run ledger_hypothesis_only" in verdicts
    assert "### Ledger record probes: transitions between TRUE and FALSE" in part
    assert "`ledger_reverse_rows`" in part
    assert "## Verdicts: does each model use the evidence in its table?" not in markdown  # the paper's part


def test_no_file_of_the_workflow_names_the_users_dataset():
    """The dataset plugs in from config alone: the workflow's files (a copy of them ran above) never
    name it or its package."""
    named = [
        str(path.relative_to(ROOT))
        for folder in ("workflow", "rules")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and re.search(r"ledger", path.read_bytes().decode("utf-8", "replace"), re.I)
    ]
    assert named == []
    assert not re.search(r"ledger", (ROOT / "Snakefile").read_text(), re.I)


def test_a_users_dataset_named_wrong_is_a_config_error(tmp_path):
    """A package that does not import, and a model naming a dataset no one registered, each say
    which key is wrong (the config check, before any job)."""
    workdir = copy_workflow(tmp_path / "wf")
    config = yaml.safe_load(
        slice_config(
            workdir,
            "bad",
            datasets={NAME: {"package": "ledger_dataset.no_such_module", "path": str(PACKAGES), "dir": str(tmp_path)}},
            probes={"original": {}},
            models={"m": {"checkpoint": str(tmp_path), "premise": "para", "datasets": ["ledgr"]}},
        ).read_text()
    )
    assert config["datasets"][NAME]["package"] == "ledger_dataset.no_such_module"
    out = snakemake(workdir, workdir / "bad.yaml", "--dry-run", check=False)
    assert out.returncode != 0
    assert (
        "config key datasets.ledger.package: dataset ledger: ledger_dataset.no_such_module:DATASET does not import"
        in (out.stdout + out.stderr)
    )
    assert "config key models.m.datasets.0: no dataset 'ledgr'" in out.stdout + out.stderr
