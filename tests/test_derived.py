"""tabprobe.config.derived: the models, runs and scoring inputs the rules plan with, from the
repository's config.yaml as the workflow reads it (the schema's defaults filled in)."""

from __future__ import annotations

import pytest
from test_job_settings import workflow_config

from tabprobe import layout
from tabprobe.config import derived
from tabprobe.data.datasets import get_dataset


@pytest.fixture(scope="module")
def default():
    return workflow_config()


def test_the_models_of_each_kind(default):
    assert derived.models_of_kind(default, "train") == ["minilm-para", "minilm-hypo"]
    assert derived.models_of_kind(default, "causal") == derived.models_of_kind(default, "init") == []
    assert derived.hypothesis_only_models(default) == ["minilm-hypo"]


def test_inoculated_models_read_and_load_as_the_model_they_come_from(default):
    inoculated = derived.inoculated_models(default)
    # The CPU budget runs the counterfactual experiment; full: true adds the hypothesis one.
    assert inoculated == {"minilm-para.ino-counterfactual-200": ("minilm-para", "counterfactual", 200)}
    assert set(derived.inoculated_models(workflow_config(full=True))) == {
        "minilm-para.ino-hypothesis-200",
        "minilm-para.ino-counterfactual-200",
    }
    name = "minilm-para.ino-counterfactual-200"
    assert derived.model_config(default, name) is default["models"]["minilm-para"]
    assert derived.checkpoint_of(default, name) == layout.inoculated_checkpoint("minilm-para", "counterfactual", 200)
    assert derived.inoculated_models(workflow_config(inoculation=None)) == {}


def test_the_checkpoint_of_each_kind_of_model(default):
    assert derived.checkpoint_of(default, "minilm-hypo") == layout.trained_model("minilm-hypo")
    models = {
        **default["models"],
        "mine": {"checkpoint": "/data/mine", "premise": "para", "max_length": 64},
        "lm": {"causal": {"checkpoint": "/data/lm"}, "premise": "markdown", "max_length": 64},
    }
    config = {**default, "models": models}
    assert derived.checkpoint_of(config, "mine") == "/data/mine"
    assert derived.checkpoint_of(config, "lm") == "/data/lm"
    assert derived.model_config(config, "mine") is models["mine"]


def test_probe_and_pooled_runs_follow_each_probes_splits(default):
    runs = derived.probe_runs(default)
    assert ("original", "alpha1") in runs and all(split == "alpha1" for _, split in runs)
    assert len(runs) == len(default["probes"])
    full = derived.probe_runs(workflow_config(full=True))
    assert [s for p, s in full if p == "original"] == ["alpha1", "alpha2", "alpha3", "train"]
    pooled = derived.pooled_probes(default)
    assert set(pooled) == {"table4", "table7"}
    assert "cf_title_swap" in [p for column in pooled["table7"].values() for p in column]
    assert {(t, c) for t, c, s in derived.pooled_runs(default)} == {(t, c) for t in pooled for c in pooled[t]}
    column = next(iter(pooled["table4"]))
    assert derived.pooled_split_members(default, "table4", column, "alpha1") == pooled["table4"][column]
    assert derived.pooled_split_members(default, "table4", column, "alpha2") == []
    assert derived.relevance_splits(default) == ["alpha1"]


def test_a_score_job_reads_the_originals_and_the_baseline_it_compares_with(default):
    para = derived.score_inputs(default, "minilm-para", "original", "alpha1")
    assert para == {
        "probe": layout.probe_examples("original", "alpha1"),
        "predictions": layout.predictions("minilm-para", "original", "alpha1"),
        "baseline": layout.predictions("minilm-hypo", "original", "alpha1"),
    }
    assert "baseline" not in derived.score_inputs(default, "minilm-hypo", "original", "alpha1")
    flip = derived.score_inputs(default, "minilm-para", "negation_flip", "alpha1")
    assert flip["original"] == layout.predictions("minilm-para", "original", "alpha1")
    pooled = derived.pooled_probes(default)["table7"]
    column = next(c for c, members in pooled.items() if members)
    inputs = derived.pooled_inputs(default, "table7", "minilm-para", column, "alpha1")
    assert inputs["probes"] == [layout.probe_examples(p, "alpha1") for p in pooled[column]]
    assert inputs["hypothesis_only"] == layout.predictions("minilm-hypo", "original", "alpha1")
    assert "hypothesis_only" not in derived.pooled_inputs(default, "table7", "minilm-hypo", column, "alpha1")


def test_the_showcase_draws_each_probes_failures_from_a_split_original_runs_on(default):
    showcase = derived.showcase(default)
    assert set(showcase) == set(default["probes"]) - {"original"}
    entry = showcase["negation_flip"]
    assert entry["split"] == "alpha1"
    assert entry["files"] == layout.showcase_inputs("negation_flip", "alpha1", ["minilm-para", "minilm-hypo"], True)


def test_the_inoculation_experiments_splits_and_members(default):
    assert derived.challenge_splits(default) == ["alpha1"]
    full = workflow_config(full=True)
    assert derived.challenge_splits(full) == ["train", "alpha1"]  # the paper's train rows
    assert derived.inoculation_splits(default) == ["alpha1"]
    assert derived.inoculation_splits(full) == ["alpha1", "alpha2", "alpha3"]
    members = derived.challenge_members(default, "counterfactual", "alpha1")
    assert {p for column in members.values() for p in column} >= {"cf_row_swap", "cf_title_swap"}
    assert derived.challenge_members(default, "defense-num_noise", "train") == {
        "defense": {"num_noise": layout.probe_examples("num_noise", "train")}
    }
    assert derived.selection_group(default, "counterfactual") == ["counterfactual"]
    assert derived.selection_group(full, "hypothesis") == ["hypothesis", "counterfactual"]
    assert derived.selection_group(default, "defense-num_noise") == ["defense-num_noise"]


@pytest.fixture(scope="module")
def with_tabfact():
    """config.yaml with config.tabfact.yaml merged over it, as `--configfile config.tabfact.yaml` does."""
    import yaml
    from snakemake.utils import update_config
    from test_job_settings import ROOT

    config = workflow_config()
    update_config(config, yaml.safe_load((ROOT / "config.tabfact.yaml").read_text()))
    return config


def test_a_model_answers_the_probes_of_the_datasets_it_is_for(with_tabfact):
    runs = derived.model_runs(with_tabfact)
    probes_of = {m: {p for model, p, _ in runs if model == m} for m in with_tabfact["models"]}
    # The InfoTabS models answer both datasets' probes, TabFact's two-label models only TabFact's.
    assert {"original", "row_deletion", "tf_original", "record_deletion"} <= probes_of["minilm-para"]
    assert "tf_original" in probes_of["tf-minilm"] and "original" not in probes_of["tf-minilm"]
    assert ("tf-minilm", "program_record_deletion", "bootstrap") in runs
    assert ("tf-minilm", "record_deletion", "simple_test") in runs
    assert not [r for r in runs if r[1] == "record_deletion" and r[2] == "alpha1"]


def test_a_tabfact_probe_is_compared_with_tf_original_and_tabfacts_hypothesis_only_model(with_tabfact):
    inputs = derived.score_inputs(with_tabfact, "tf-minilm", "record_deletion", "complex_test")
    assert inputs["original"] == layout.predictions("tf-minilm", "tf_original", "complex_test")
    baseline = derived.score_inputs(with_tabfact, "tf-minilm", "tf_original", "simple_test")["baseline"]
    assert baseline == layout.predictions("tf-minilm-hypo", "tf_original", "simple_test")  # trained on TabFact
    assert derived.hypothesis_only_models(with_tabfact, "tabfact") == ["tf-minilm-hypo", "minilm-hypo"]
    # InfoTabS's probes keep theirs.
    assert derived.score_inputs(with_tabfact, "minilm-para", "original", "alpha1")["baseline"] == layout.predictions(
        "minilm-hypo", "original", "alpha1"
    )


def test_tabfacts_data_lies_apart_from_infotabs(with_tabfact):
    assert get_dataset("tabfact").examples("train") == "results/data/tabfact/train.parquet"
    assert layout.examples("train") == "results/data/train.parquet"
    assert (
        get_dataset("tabfact").ingest_outputs("bootstrap")["programs"]
        == "results/data/tabfact/bootstrap.programs.parquet"
    )
    showcase = derived.showcase(with_tabfact)["record_deletion"]
    assert showcase["split"] == "simple_test"
    assert showcase["files"]["examples"] == get_dataset("tabfact").examples("simple_test")
    assert showcase["files"]["original:tf-minilm"] == layout.predictions("tf-minilm", "tf_original", "simple_test")
    assert "predictions:minilm-para" in showcase["files"]
