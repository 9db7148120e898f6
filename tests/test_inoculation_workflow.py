"""Inoculation (paper section 7) and controlled variance (diversify-your-datasets section 3)
through the real workflow, on a slice of the real InfoTabS with a tiny checkpoint: one GPU job per
(experiment, size, learning rate) and per (training size, repeat), the best rate kept per size,
the kept models probed, paper Tables 9-12 with Liu et al.'s outcomes, and accuracy by number
range along the learning curve with its spread over the repeats, in the report (table and
figure); re-runs that add a training size or a test range run only the jobs they change."""

from __future__ import annotations

import json
import re
import subprocess

import pyarrow.parquet as pq
import pytest
import yaml
from tiny_bert import tiny_bert
from workflow_copy import copy_workflow, snakemake_command

pytestmark = pytest.mark.e2e
LEARNING_RATES = [0.001, 0.0001]
SIZES = [4, 8]
CURVE = [8, 16]  # controlled variance's training sizes


def snakemake(workdir, configfile, *args):
    result = subprocess.run(snakemake_command(workdir, configfile, *args), capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


# Of train's 16,538 hypotheses, the first ones (422 tables): inoculation and controlled variance
# draw a few dozen examples from train (the latter from the 68 lines here with a number in 30-49),
# but parsing and probing all of train cost this test about 70 s of job time on a 2-core machine.
TRAIN_LINES = 4000


@pytest.fixture(scope="module")
def infotabs_with_less_train(tmp_path_factory, shared_infotabs):
    """The real InfoTabS with train cut to its header and first TRAIN_LINES hypotheses, every other
    file and folder a link to the real one; no longer the release's bytes, so not checked against
    its checksums (`infotabs_verify: false`)."""
    root = tmp_path_factory.mktemp("infotabs-less-train")
    for entry in shared_infotabs.iterdir():
        if entry.name != "data":
            (root / entry.name).symlink_to(entry)
    (root / "data" / "maindata").mkdir(parents=True)
    for entry in (shared_infotabs / "data").iterdir():
        if entry.name != "maindata":
            (root / "data" / entry.name).symlink_to(entry)
    for tsv in (shared_infotabs / "data" / "maindata").iterdir():
        if tsv.name == "infotabs_train.tsv":
            lines = tsv.read_bytes().split(b"\n")
            (root / "data" / "maindata" / tsv.name).write_bytes(b"\n".join(lines[: 1 + TRAIN_LINES]) + b"\n")
        else:
            (root / "data" / "maindata" / tsv.name).symlink_to(tsv)
    return root


@pytest.fixture(scope="module")
def run(tmp_path_factory, infotabs_with_less_train):
    workdir = copy_workflow(tmp_path_factory.mktemp("inoculation"))
    checkpoint = tiny_bert(workdir / "tiny-checkpoint", head=True, seed=5)
    config = {
        "infotabs_dir": str(infotabs_with_less_train),
        "infotabs_verify": False,
        "seed": 2022,
        "splits": ["alpha1", "alpha2"],
        "max_examples": 40,
        "min_examples": 1,  # the report reads these few examples as a full run's (tests/test_power.py: the minimum)
        "probes": {
            "original": {"splits": ["alpha1", "alpha2", "train"]},
            "negation_flip": {"splits": ["alpha1", "train"]},
            "modifier_preserve": {"splits": ["alpha1", "train"]},
            "cf_title_swap": {"splits": ["alpha1", "train"]},
            # The Defense's perturbation and the comparisons it perturbs (its Original).
            "num_comparative": {"splits": ["alpha1"]},
            "num_noise": {"splits": ["alpha1"], "max_examples": 400},
        },
        "models": {"tiny": {"checkpoint": str(checkpoint), "premise": "para", "max_length": 64, "batch_size": 16}},
        "inoculation": {
            "model": "tiny",
            "experiments": ["hypothesis", "counterfactual"],
            "sizes": SIZES,
            "learning_rates": LEARNING_RATES,
            "max_epochs": 2,
            "patience": 1,
            "batch_size": 4,
            "dev_examples": 16,
            "train_rows": True,
            "defense": ["num_noise"],
        },
        "controlled_variance": {
            "model": "tiny",
            "train_range": [30, 49],
            "test_ranges": [[30, 49], [200, 299]],
            "resamples": 3,
            "train_sizes": CURVE,
            "test_examples": 12,
            "dev_examples": 8,
            "learning_rate": 0.001,
            "max_epochs": 1,
            "patience": 1,
            "batch_size": 8,
        },
        "scoring": {"samplings": 100, "fraction": 0.8, "bootstrap": 200, "confidence": 0.95},
    }
    configfile = workdir / "inoculation.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = snakemake(workdir, configfile, "--dry-run").stdout
    snakemake(workdir, configfile, "--cores", "2")
    return {"dir": workdir, "config": configfile, "plan": plan}


def test_every_experiment_size_and_learning_rate_is_its_own_gpu_job(run):
    jobs = re.findall(
        r"rule inoculate:.*?wildcards: ([^\n]*)\n(?:\s+priority: [^\n]*\n)?\s+resources: (.*?)\n",
        run["plan"],
        flags=re.S,
    )
    assert sorted(w for w, _ in jobs) == sorted(
        f"model=tiny, experiment={e}, size={s}, lr={lr:g}"
        for e in ("hypothesis", "counterfactual", "defense-num_noise")
        for s in SIZES
        for lr in LEARNING_RATES
    )
    assert all("gpu=1" in resources for _, resources in jobs)


def test_each_size_keeps_the_learning_rate_with_the_best_dev_accuracy(run):
    for experiment in ("hypothesis", "counterfactual"):
        for size in SIZES:
            folder = run["dir"] / "resources" / "inoculated" / "tiny" / experiment / str(size)
            grid = json.loads((folder / "best" / "inoculation_grid.json").read_text())
            dev = {
                lr: json.loads((folder / f"lr{lr}" / "tabprobe.json").read_text())["dev_accuracy"]
                for lr in (f"{x:g}" for x in LEARNING_RATES)
            }
            assert grid["dev_accuracy_by_learning_rate"] == dev
            best = max(dev, key=lambda lr: (dev[lr], -list(dev).index(lr)))
            assert grid["learning_rate"] == float(best)
            kept = folder / f"lr{best}" / "model.safetensors"
            assert (folder / "best" / "model.safetensors").read_bytes() == kept.read_bytes()
            meta = json.loads((folder / "best" / "tabprobe.json").read_text())
            assert meta["train_examples"] == size and meta["epochs_run"] <= 2


def test_the_changes_are_paired_and_the_report_has_tables_9_to_12_with_outcomes(run):
    scores = pq.read_table(run["dir"] / "results" / "inoculation" / "tiny" / "hypothesis.parquet").to_pylist()
    lookup = {(r["model"], r["probe"], r["split"], r["statistic"], r["label"]): r for r in scores}
    before = lookup[("tiny.ino-hypothesis-0", "original", "alpha1", "accuracy", "all")]  # size 0: the model before
    assert before["n"] == 40
    for size in SIZES:
        model = f"tiny.ino-hypothesis-{size}"
        after = lookup[(model, "original", "alpha1", "accuracy", "all")]
        change = lookup[(model, "original", "alpha1", "accuracy_change", "all")]
        # The same samplings before and after: the mean change is the change of the means.
        assert change["mean"] == pytest.approx(after["mean"] - before["mean"], abs=1e-9)
        assert (model, "table4:challenge", "alpha1", "accuracy_change", "all") in lookup
        assert (model, "original", "alpha2", "accuracy", "all") in lookup  # Table 9: every original split
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    part = markdown.split("## Inoculation (paper section 7)")[1].split("\n## ")[0]
    assert "Paper Table 9 layout" in part and "Paper Table 10 layout" in part
    assert "Paper Table 11 layout" in part and "Paper Table 12 layout" in part
    # The paper's rows beneath ours (Tables 9 and 10, 100 examples).
    # Only the splits this run covers (alpha1, alpha2): no alpha3 column (the paper's 58.51).
    assert "| paper: 100 | 67.44 |  | 62.17 |  |\n" in part and "58.51" not in part
    assert "| paper: 100 | 68.05 |  | 65.67 |  | 57.91 |  |" in part
    assert "This is the CPU budget's reduced grid" in part
    assert len(re.findall(r"^\| (?:4|8) \| (?:1|2|3|none) \| ", part, flags=re.M)) == 2 * len(
        SIZES
    )  # an outcome per inoculation


def test_full_gives_the_papers_grid_where_the_config_leaves_it_out(run):
    config = yaml.safe_load(run["config"].read_text())
    config["full"] = True
    for key in ("learning_rates", "max_epochs", "patience", "dev_examples"):
        del config["inoculation"][key]
    full = run["dir"] / "full.yaml"
    full.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = snakemake(run["dir"], full, "--dry-run").stdout
    rates = set(re.findall(r"experiment=hypothesis, size=4, lr=([0-9.e-]+)", plan))
    assert rates == {"0.0001", "5e-05", "1e-05"}
    # The paper's selection: one rate over every size of both experiments (a Defense over its own).
    (inputs,) = re.findall(r"rule select_inoculation:\n\s+input: (.*?)\n\s+output: \S+/hypothesis/4/best\n", plan)
    kept_over = set(re.findall(r"inoculated/tiny/(\w+)/(\d+)/lr", inputs))
    assert kept_over == {(e, str(s)) for e in ("hypothesis", "counterfactual") for s in SIZES}
    (inputs,) = re.findall(
        r"rule select_inoculation:\n\s+input: (.*?)\n\s+output: \S+/defense-num_noise/4/best\n", plan
    )
    assert set(re.findall(r"inoculated/tiny/([\w-]+)/(\d+)/lr", inputs)) == {
        ("defense-num_noise", str(s)) for s in SIZES
    }
    # The controlled-variance keys the config writes hold under full: its sizes and 3 repeats.
    trained = set(re.findall(r"rule train_variance:.*?wildcards: model=tiny, size=(\d+), resample=(\d+)", plan, re.S))
    assert trained <= {(str(s), str(r)) for s in CURVE for r in (1, 2, 3)}


def test_tables_10_and_12_have_their_train_rows(run):
    """`train_rows`: every model of an experiment scored on the challenge set of train (what the
    inoculations drew from) and on its originals, beside alpha1's, in the report as the paper
    labels them."""
    for experiment, table in (("hypothesis", "table4"), ("counterfactual", "table7")):
        path = run["dir"] / "results" / "inoculation" / "tiny" / f"{experiment}.parquet"
        lookup = {
            (r["model"], r["probe"], r["split"], r["statistic"], r["label"]): r for r in pq.read_table(path).to_pylist()
        }
        for split in ("train", "alpha1"):
            assert lookup[(f"tiny.ino-{experiment}-0", f"{table}:challenge", split, "accuracy", "all")]["n"] > 0
            paired = lookup[(f"tiny.ino-{experiment}-0", f"{table}:original", split, "accuracy", "EC")]
            assert 0 < paired["n"] <= 40  # the gold examples of the challenge set, without NEUTRAL
            assert (f"tiny.ino-{experiment}-8", f"{table}:challenge", split, "accuracy_change", "all") in lookup
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    part = markdown.split("## Inoculation (paper section 7)")[1].split("\n## ")[0]
    assert (
        "Paper Table 10 layout, Train Set (w/o NEUTRAL)" in part
        and "Paper Table 12 layout, α1 Set (w/o NEUTRAL)" in part
    )
    assert "| paper: 100 | 97.24 |  | 95.58 |  | 79.25 |  |" in part  # the paper's train row, Table 10


def test_a_defense_fine_tunes_on_the_perturbation_and_is_reported_beside_inoculation(run):
    """numerical-qa-robustness's Defense: train on train*, validate on val*, test on test*; the
    model before is the Attack, num_comparative the Original."""
    folder = run["dir"] / "resources" / "inoculated" / "tiny" / "defense-num_noise"
    for size in SIZES:
        meta = json.loads((folder / str(size) / "best" / "tabprobe.json").read_text())
        assert meta["train_examples"] == size and 0 < meta["dev_examples"] <= 16
    path = run["dir"] / "results" / "inoculation" / "tiny" / "defense-num_noise.parquet"
    lookup = {(r["model"], r["probe"], r["split"], r["statistic"]) for r in pq.read_table(path).to_pylist()}
    assert ("tiny.ino-defense-num_noise-0", "num_comparative", "alpha1", "accuracy") in lookup
    assert ("tiny.ino-defense-num_noise-8", "defense-num_noise:defense", "alpha1", "accuracy_change") in lookup
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    part = markdown.split("Defense (numerical-qa-robustness section 4.3), beside inoculation")[1].split("\n## ")[0]
    assert len(re.findall(r"^\| num_noise \| (?:4|8) \| ", part, flags=re.M)) == len(SIZES)
    assert "Inoculation on defense" not in markdown  # not a Table 9-12 section of its own


def planned_rules(plan: str) -> set[str]:
    """The rules of a dry run's first "Job stats" table."""
    table = plan.split("Job stats:")[1].strip().split("\n\n")[0].splitlines()[2:]
    return {line.split()[0] for line in table} - {"total"}


def variance_jobs(plan: str, rule: str) -> list[str]:
    return sorted(
        re.findall(
            rf"rule {rule}:.*?wildcards: ([^\n]*)\n(?:\s+priority: [^\n]*\n)?\s+resources: .*?gpu=1", plan, flags=re.S
        )
    )


def test_controlled_variance_trains_and_scores_each_repeat_and_size_as_a_job(run):
    assert variance_jobs(run["plan"], "train_variance") == sorted(
        f"model=tiny, size={s}, resample={r}" for s in CURVE for r in (1, 2, 3)
    )
    # Size 0: the model before fine-tuning, on each repeat's test examples.
    assert variance_jobs(run["plan"], "score_variance") == sorted(
        f"model=tiny, size={s}, resample={r}" for s in [0, *CURVE] for r in (1, 2, 3)
    )
    for size in CURVE:
        for r in (1, 2, 3):
            meta = json.loads(
                (run["dir"] / "resources" / "variance" / "tiny" / str(size) / f"r{r}" / "tabprobe.json").read_text()
            )
            assert meta["train_examples"] == size


def test_the_summary_and_report_show_the_learning_curve_with_the_spread_over_repeats(run):
    summary = json.loads((run["dir"] / "results" / "variance" / "tiny.json").read_text())
    assert summary["train_range"] == "30-49" and [r["range"] for r in summary["ranges"]] == ["30-49", "200-299"]
    assert summary["sizes"] == [0, *CURVE] and summary["repeats"] == 3
    scores = pq.read_table(run["dir"] / "results" / "variance" / "tiny.parquet").to_pylist()
    assert {r["model"] for r in scores} == {"tiny", *(f"tiny.cv-{s}" for s in CURVE)}
    for ranges in summary["ranges"]:
        label = ranges["range"]
        for point in ranges["curve"]:
            model = "tiny" if point["size"] == 0 else f"tiny.cv-{point['size']}"
            repeats = [r["mean"] for r in scores if r["model"] == model and r["probe"] == f"num_comparative[{label}]"]
            assert len(repeats) == 3 and point["repeats"] == 3
            assert point["mean"] == pytest.approx(sum(repeats) / 3)
            assert point["min"] == min(repeats) and point["max"] == max(repeats)
        assert ranges["before"] == {k: v for k, v in ranges["curve"][0].items() if k != "size"}
        assert ranges["after"] == {k: v for k, v in ranges["curve"][-1].items() if k != "size"}
        assert all(r["n"] == 12 for r in scores if r["probe"] == f"num_comparative[{label}]")
    # Every size of a repeat is scored on the same examples, with the same samplings.
    intervals = {(r["model"], r["probe"], r["label"]): r["n"] for r in scores}
    assert len({n for n in intervals.values()}) == 1
    markdown = (run["dir"] / "results" / "report" / "report.md").read_text()
    section = markdown.split("Controlled variance: number ranges")[1].split("\n## ")[0]
    assert "| Test range | 0 (before) | 8 | 16 |" in section
    assert "| 30-49 (trained on) |" in section and "| 200-299 |" in section and "repeat 3" in section
    assert "after fine-tuning on 16 examples, each repeat" in section
    figure = run["dir"] / "results" / "report" / "figures" / "numeric" / "tiny" / "controlled-variance.svg"
    svg = figure.read_text()
    assert "30-49 (trained on)" in svg and "200-299" in svg and "0 (before)" in svg
    html = (run["dir"] / "results" / "report" / "index.html").read_text()
    assert "tiny: accuracy by number range against training size" in html  # inlined in the page too


def test_the_variance_scores_repeat_byte_for_byte(run, tmp_path):
    """Same config and seed, same bytes: one (size, repeat) trained and scored again outside
    Snakemake gives the workflow's checkpoint and scores exactly."""
    from tabprobe import stages

    config = yaml.safe_load(run["config"].read_text())
    plan = {**config["controlled_variance"]}
    from tabprobe.config.defaults import model_default

    tiny = config["models"]["tiny"]
    # What get_base_model_settings hands the jobs: the model's keys, the schema's defaults for the rest.
    model = {
        "premise": tiny["premise"],
        "max_length": tiny["max_length"],
        "batch_size": tiny["batch_size"],
        "gpu_batch_tokens": model_default("gpu_batch_tokens"),
        "precision": model_default("precision"),
        "pair_order": model_default("pair_order"),
        "label_map": None,
    }
    data, resources = run["dir"] / "results" / "data", run["dir"] / "resources"
    checkpoint = str(run["dir"] / "tiny-checkpoint")
    stages.train_variance(
        checkpoint,
        str(data / "train.parquet"),
        str(data / "train.tables.parquet"),
        str(data / "dev.parquet"),
        str(data / "dev.tables.parquet"),
        str(tmp_path / "model"),
        resample=2,
        size=CURVE[0],
        settings=plan,
        model=model,
        seed=config["seed"],
    )
    kept = resources / "variance" / "tiny" / str(CURVE[0]) / "r2"
    assert (tmp_path / "model" / "model.safetensors").read_bytes() == (kept / "model.safetensors").read_bytes()
    for size, path in ((0, checkpoint), (CURVE[0], str(tmp_path / "model"))):
        out = tmp_path / f"{size}.parquet"
        stages.score_variance(
            "tiny",
            path,
            2,
            size,
            str(data / "alpha1.parquet"),
            str(data / "alpha1.tables.parquet"),
            str(out),
            settings=plan,
            model=model,
            scoring_settings=config["scoring"],
            seed=config["seed"],
        )
        workflow = run["dir"] / "results" / "variance" / "tiny" / str(size) / "r2.parquet"
        assert out.read_bytes() == workflow.read_bytes(), size


def test_adding_a_training_size_or_a_test_range_runs_only_the_jobs_it_changes(run, tmp_path):
    config = yaml.safe_load(run["config"].read_text())
    config["controlled_variance"]["train_sizes"] = [*CURVE, 4]
    bigger = tmp_path / "bigger.yaml"
    bigger.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = snakemake(run["dir"], bigger, "--dry-run").stdout
    assert variance_jobs(plan, "train_variance") == [f"model=tiny, size=4, resample={r}" for r in (1, 2, 3)]
    assert variance_jobs(plan, "score_variance") == [f"model=tiny, size=4, resample={r}" for r in (1, 2, 3)]
    assert planned_rules(plan) == {
        "train_variance",
        "score_variance",
        "collect_variance",
        "collect_results",
        "assemble_report",
        "all",
    }
    # A new test range re-scores every (size, repeat) and trains nothing.
    config = yaml.safe_load(run["config"].read_text())
    config["controlled_variance"]["test_ranges"].append([1000, 9999])
    wider = tmp_path / "wider.yaml"
    wider.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = snakemake(run["dir"], wider, "--dry-run").stdout
    assert variance_jobs(plan, "train_variance") == []
    assert len(variance_jobs(plan, "score_variance")) == 3 * (1 + len(CURVE))
