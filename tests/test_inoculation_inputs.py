"""tabprobe.config.inoculation_inputs: what the rules of inoculation.smk plan with (the challenge
splits and members, the dev examples, the learning-rate grids, what score_inoculation compares,
the controlled-variance jobs' inputs), on configs built here from config.yaml; no Snakemake."""

from __future__ import annotations

import pytest
from test_job_settings import tabfact_workflow_config, workflow_config

from tabprobe import layout
from tabprobe.config import ConfigError, derived
from tabprobe.config import inoculation_inputs as experiments
from tabprobe.config.names import VARIANCE_PROBE, range_probe


@pytest.fixture(scope="module")
def default():
    return workflow_config()


@pytest.fixture(scope="module")
def full():
    """`full: true`: both experiments, the paper's three learning rates shared, the train rows."""
    return workflow_config(full=True)


@pytest.fixture(scope="module")
def defense():
    """A Defense on num_noise beside the counterfactual experiment, num_comparative among the probes."""
    config = workflow_config()
    config["inoculation"] = {**config["inoculation"], "defense": ["num_noise"]}
    return config


def test_the_challenge_splits_and_members_of_an_experiment(default, full):
    assert experiments.challenge_splits(default) == ["alpha1"]
    assert experiments.challenge_splits(full) == ["train", "alpha1"]  # the paper's train rows
    assert experiments.inoculation_splits(default) == ["alpha1"]
    assert experiments.inoculation_splits(full) == ["alpha1", "alpha2", "alpha3"]
    members = experiments.challenge_members(default, "counterfactual", "alpha1")
    assert {p for column in members.values() for p in column} >= {"cf_row_swap", "cf_title_swap"}
    assert experiments.challenge_members(default, "defense-num_noise", "train") == {
        "defense": {"num_noise": layout.probe_examples("num_noise", "train")}
    }
    # On train every pooled probe's examples, generated for the fine-tuning whatever its splits;
    # on another split only the probes that run there.
    train = experiments.challenge_train_members(default, "counterfactual")
    assert train == experiments.challenge_members(default, "counterfactual", "train")
    assert {p for column in train.values() for p in column} == {p for column in members.values() for p in column}
    narrowed = workflow_config()
    narrowed["probes"]["cf_row_swap"] = {"splits": ["alpha2"]}
    alpha1 = experiments.challenge_members(narrowed, "counterfactual", "alpha1")
    assert "cf_row_swap" not in {p for column in alpha1.values() for p in column}
    assert "cf_row_swap" in {
        p for c in experiments.challenge_train_members(narrowed, "counterfactual").values() for p in c
    }
    by_split = experiments.challenge_members_by_split(full, "hypothesis")
    assert list(by_split) == ["train", "alpha1"]
    assert by_split["alpha1"] == experiments.challenge_members(full, "hypothesis", "alpha1")


def test_an_experiment_trains_on_its_paper_tables_probes_and_a_defense_on_its_own(default):
    assert experiments.inoculation_table("counterfactual") == "table7"
    assert experiments.inoculation_table("hypothesis") == "table4"
    assert experiments.inoculation_table("defense-num_noise") == "defense-num_noise"
    assert experiments.selection_group(default, "counterfactual") == ["counterfactual"]
    assert experiments.selection_group(workflow_config(full=True), "hypothesis") == ["hypothesis", "counterfactual"]
    assert experiments.selection_group(default, "defense-num_noise") == ["defense-num_noise"]


def test_an_inoculation_picks_its_checkpoint_on_its_datasets_dev_and_a_defense_on_its_probes(default):
    assert experiments.inoculation_dev(default, "counterfactual") == {
        "dev": layout.examples("dev"),
        "dev_tables": layout.tables("dev"),
    }
    assert experiments.inoculation_dev(default, "defense-num_noise") == {
        "dev": layout.probe_examples("num_noise", "dev")
    }
    # The dev split is the inoculated model's dataset's declaration, not a name written here:
    # a model that learnt TabFact would validate on TabFact's `val`.
    on_tabfact = tabfact_workflow_config(inoculation={"model": "tf-minilm"})
    assert experiments.inoculation_dataset(on_tabfact).name == "tabfact"
    assert experiments.inoculation_dev(on_tabfact, "counterfactual") == {
        "dev": "results/data/tabfact/val.parquet",
        "dev_tables": "results/data/tabfact/val.tables.parquet",
    }
    assert experiments.inoculation_dev(on_tabfact, "defense-num_noise") == {
        "dev": layout.probe_examples("num_noise", "val")
    }
    assert experiments.inoculation_baseline(on_tabfact) == "tf_original"
    assert experiments.inoculation_baseline(default) == "original"


def test_an_inoculate_job_reads_the_checkpoint_every_challenge_probes_train_examples_and_dev(default):
    inputs = experiments.inoculation_inputs(default, "minilm-struct", "counterfactual")
    members = experiments.challenge_train_members(default, "counterfactual")
    assert list(inputs) == ["checkpoint", "challenge", "dev", "dev_tables"]
    assert inputs["checkpoint"] == layout.trained_model("minilm-struct")
    assert inputs["challenge"] == sorted(path for column in members.values() for path in column.values())
    assert layout.probe_examples("cf_title_swap", "train") in inputs["challenge"]
    with pytest.raises(ConfigError, match="Did you mean 'minilm-struct'"):
        experiments.inoculation_inputs(default, "minilm-strct", "counterfactual")


def test_a_grid_runs_each_learning_rate_and_a_shared_rate_is_chosen_over_every_run(default, full):
    assert [experiments.learning_rate_text(lr) for lr in (1e-4, 5e-5, 1e-5, 0.001)] == [
        "0.0001",
        "5e-05",
        "1e-05",
        "0.001",
    ]
    grid = experiments.inoculation_grid(full, "minilm-struct", "hypothesis", 200)
    assert grid == {
        lr: layout.inoculated_checkpoint("minilm-struct", "hypothesis", 200, lr) for lr in ("0.0001", "5e-05", "1e-05")
    }
    # The CPU budget keeps each run's own best: nothing shared.
    assert experiments.inoculation_shared_grid(default, "minilm-struct", "counterfactual") == {}
    assert experiments.inoculation_grid_dirs(default, "minilm-struct", "counterfactual", 200) == [
        layout.inoculated_checkpoint("minilm-struct", "counterfactual", 200, "5e-05")
    ]
    # `full: true` chooses the paper's one rate over both experiments (a Defense over its own runs).
    shared = experiments.inoculation_shared_grid(full, "minilm-struct", "hypothesis")
    assert list(shared) == ["hypothesis/200", "counterfactual/200"]
    assert shared["counterfactual/200"] == experiments.inoculation_grid(full, "minilm-struct", "counterfactual", 200)
    dirs = experiments.inoculation_grid_dirs(full, "minilm-struct", "hypothesis", 200)
    assert dirs == sorted({p for g in shared.values() for p in g.values()}) and len(dirs) == 6
    with_defense = workflow_config(full=True, inoculation={"model": "minilm-struct", "defense": ["num_noise"]})
    assert list(experiments.inoculation_shared_grid(with_defense, "minilm-struct", "defense-num_noise")) == [
        "defense-num_noise/200"
    ]


def test_score_inoculation_compares_every_model_of_the_experiment_on_the_originals_and_challenge(default, full):
    assert experiments.inoculation_models(default, "minilm-struct", "counterfactual") == {
        0: "minilm-struct",
        200: "minilm-struct.ino-counterfactual-200",
    }
    assert experiments.inoculation_best(default, "minilm-struct", "counterfactual") == {
        200: layout.inoculated_checkpoint("minilm-struct", "counterfactual", 200)
    }
    assert experiments.inoculation_originals(full) == {
        s: layout.probe_examples("original", s) for s in ("alpha1", "alpha2", "alpha3")
    }
    assert experiments.challenge_originals(full) == {
        s: layout.probe_examples("original", s) for s in ("train", "alpha1")
    }
    predictions = experiments.inoculation_predictions(full, "minilm-struct", "counterfactual")
    assert list(predictions) == ["minilm-struct", "minilm-struct.ino-counterfactual-200"]
    before = predictions["minilm-struct"]
    # The original probe first, its splits in the dataset's order (train before the test splits).
    assert next(iter(before)) == "original"
    assert list(before["original"]) == ["train", "alpha1", "alpha2", "alpha3"]
    assert before["cf_row_swap"] == {
        s: layout.predictions("minilm-struct", "cf_row_swap", s) for s in ("train", "alpha1")
    }
    members = experiments.challenge_members_by_split(full, "counterfactual")
    assert set(before) == {"original"} | {p for by_column in members.values() for c in by_column.values() for p in c}
    inputs = experiments.inoculation_score_inputs(full, "minilm-struct", "counterfactual")
    assert inputs["predictions"] == sorted(
        path for by_probe in predictions.values() for by_split in by_probe.values() for path in by_split.values()
    )
    assert inputs["originals"] == list(experiments.inoculation_originals(full).values())
    assert inputs["challenge_originals"] == list(experiments.challenge_originals(full).values())
    assert inputs["baselines"] == []
    assert inputs["best"] == [layout.inoculated_checkpoint("minilm-struct", "counterfactual", 200)]
    assert layout.probe_examples("cf_human", "train") in inputs["members"] and inputs["members"] == sorted(
        inputs["members"]
    )


def test_a_defense_is_scored_beside_num_comparative_where_it_runs(defense):
    assert experiments.inoculation_baselines(defense, "defense-num_noise") == {
        "num_comparative": layout.probe_examples("num_comparative", "alpha1")
    }
    assert experiments.inoculation_baselines(defense, "counterfactual") == {}
    predictions = experiments.inoculation_predictions(defense, "minilm-struct", "defense-num_noise")
    assert list(predictions["minilm-struct"]) == ["original", "num_noise", "num_comparative"]
    assert predictions["minilm-struct"]["num_comparative"] == {
        "alpha1": layout.predictions("minilm-struct", "num_comparative", "alpha1")
    }
    without = {**defense, "probes": {p: s for p, s in defense["probes"].items() if p != "num_comparative"}}
    assert experiments.inoculation_baselines(without, "defense-num_noise") == {}


def test_the_experiments_outputs_and_summaries_and_none_without_an_inoculation(default, defense):
    assert experiments.inoculation_outputs(defense) == [
        layout.inoculation_scores("minilm-struct", "counterfactual"),
        layout.inoculation_summary("minilm-struct", "counterfactual"),
        layout.inoculation_scores("minilm-struct", "defense-num_noise"),
        layout.inoculation_summary("minilm-struct", "defense-num_noise"),
    ]
    assert experiments.inoculation_summaries(default) == {
        "counterfactual": layout.inoculation_summary("minilm-struct", "counterfactual")
    }
    none = workflow_config(inoculation=None)
    assert experiments.inoculation_outputs(none) == [] and experiments.inoculation_summaries(none) == {}
    # A requested inoculation file without an inoculation says what to set, not a TypeError.
    with pytest.raises(ConfigError, match="`inoculation.model` is not set"):
        experiments.inoculation_score_inputs(none, "minilm-struct", "counterfactual")


def test_a_variance_job_reads_its_probes_dataset_and_the_model_it_tests(default):
    assert VARIANCE_PROBE == "num_comparative" and range_probe([30, 49]) == "num_comparative[30-49]"
    assert experiments.variance_dataset().name == "infotabs"
    sources = experiments.variance_probe_sources("workflow")
    assert "workflow/tabprobe/probes/infotabs/numeric/num_comparative.py" in sources
    assert experiments.variance_inputs(default, "minilm-struct") == {
        "checkpoint": layout.trained_model("minilm-struct"),
        "train": layout.examples("train"),
        "train_tables": layout.tables("train"),
        "dev": layout.examples("dev"),
        "dev_tables": layout.tables("dev"),
    }
    # Size 0 is the model before fine-tuning; any other size the repeat's fine-tuned one.
    before = experiments.variance_test_inputs(default, "minilm-struct", "0", "2")
    assert before == {
        "checkpoint": derived.checkpoint_of(default, "minilm-struct"),
        "test": layout.examples("alpha1"),
        "test_tables": layout.tables("alpha1"),
    }
    after = experiments.variance_test_inputs(default, "minilm-struct", "200", "2")
    assert after["checkpoint"] == layout.variance_checkpoint("minilm-struct", "200", "2")
    with pytest.raises(ConfigError, match="Did you mean 'minilm-struct'"):
        experiments.variance_test_inputs(default, "minilm-strct", "0", "1")


def test_the_learning_curves_jobs_and_outputs(default):
    scores = experiments.variance_job_scores(default, "minilm-struct")
    assert list(scores) == [0, 200] and all(list(by_repeat) == [1, 2, 3] for by_repeat in scores.values())
    assert scores[200][3] == layout.variance_job_scores("minilm-struct", 200, 3)
    assert experiments.variance_job_scores_list(default, "minilm-struct") == [
        layout.variance_job_scores("minilm-struct", size, r) for size in (0, 200) for r in (1, 2, 3)
    ]
    full = experiments.variance_job_scores(workflow_config(full=True), "minilm-struct")
    assert list(full) == [0, 250, 500, 1000, 2000, 3000] and list(full[0]) == [1, 2, 3, 4, 5]
    assert experiments.variance_outputs(default) == [
        layout.variance_scores("minilm-struct"),
        layout.variance_summary("minilm-struct"),
    ]
    assert experiments.variance_summaries(default) == {"minilm-struct": layout.variance_summary("minilm-struct")}
    none = workflow_config(controlled_variance=None)
    assert experiments.variance_outputs(none) == [] and experiments.variance_summaries(none) == {}
    with pytest.raises(ConfigError, match="`controlled_variance.model` is not set"):
        experiments.variance_job_scores(none, "minilm-struct")
