"""The settings the rules hand their jobs as params, each a function of the checked config: only
what a job depends on, with sorted keys (canonical), so that editing one model, reordering
config.yaml or adding a training size re-runs no job whose settings did not change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe.config.settings import model_max_length
from tabprobe.config.trained_from import base_model, resolved_base

# The inoculation settings every fine-tuning of the grid is given (score_inoculation and the
# report get the whole plan: inoculation_report_plan).
INOCULATION_TRAIN_KEYS = ("max_epochs", "patience", "batch_size", "dev_examples")
# Controlled variance: each job gets only the settings it depends on, so a new training size
# or repeat adds jobs without re-running the others, and a new test range re-scores without
# re-training.
VARIANCE_TRAIN_KEYS = ("train_range", "dev_examples", "learning_rate", "max_epochs", "patience", "batch_size")
VARIANCE_TEST_KEYS = ("test_ranges", "test_examples")
VARIANCE_PLAN_KEYS = ("train_range", "test_ranges", "train_sizes", "resamples")


def canonical(value: Any) -> Any:
    """Dicts with sorted keys, recursively. Snakemake compares params by their text, so without
    this, reordering keys in config.yaml would re-run jobs whose settings did not change."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def scoring_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """The scoring block (samplings, bootstrap, ...), the same for every scoring job."""
    return canonical(config["scoring"])


def train_priority(config: Mapping[str, Any], name: str, model: Mapping[str, Any]) -> int:
    """A model that reads its table trains first: everything after training (its probes, the
    inoculation and controlled-variance fine-tunings) waits for it, while a hypothesis-only model
    is short and only its own inference waits (in a default run of 2026-11-26 minilm-hypo's
    training ran first and held both cores for 70 s). A model another trains from
    (`train.base: {model: ...}`) goes before both: that model's training waits for it. `model`:
    the config block of `name`."""
    if any(base_model(other.get("train")) == name for other in config["models"].values()):
        return 11
    return 10 if model["premise"] != "hypothesis_only" else 9


def train_settings(config: Mapping[str, Any], model: Mapping[str, Any]) -> dict[str, Any]:
    """A model's training block (`model`: its config block); `full: true` lifts the CPU caps (all
    of train and dev)."""
    train = dict(model["train"])
    full_epochs = train.pop("full_epochs", None)
    if base_model(train):  # another model of the run: its checkpoint's folder, and its name for the record
        train.update(base=resolved_base(train), base_model=base_model(train))
    # Train on the inputs the model will be probed with, unless told otherwise.
    train["max_length"] = train.get("max_length") or model_max_length(config, model)
    if model.get("premise_selection"):  # left out when none, so that no other model's job re-runs
        train["premise_selection"] = model["premise_selection"]
    if config["full"]:
        train.update(examples=None, dev_examples=None, epochs=full_epochs or train["epochs"])
    return canonical(train)


def inference_settings(config: Mapping[str, Any], model: Mapping[str, Any]) -> dict[str, Any]:
    """How a model (`model`: its config block) reads its inputs: only its own settings, so editing
    one model never re-runs another's jobs (and a derived model, inoculated or controlled-variance,
    reads as its base). A causal LM's `prompt` is its `causal:` block less the checkpoint (an
    input of its own)."""
    settings = {
        "premise": model["premise"],
        "max_length": model_max_length(config, model),
        "batch_size": model["batch_size"],
        "gpu_batch_tokens": model["gpu_batch_tokens"],
        "precision": model["precision"],
    }
    if model.get("premise_selection"):
        settings["premise_selection"] = model["premise_selection"]
    if "causal" in model:
        settings["prompt"] = {k: v for k, v in model["causal"].items() if k != "checkpoint"}
    else:
        # An output index may be written as YAML's integer (`0: C`) or as text: one spelling, so
        # a map mixing the two sorts, and the model server, which reads it as JSON, gets the same.
        labels = model.get("labels")
        label_map = {str(key): target for key, target in labels.items()} if labels else labels
        settings.update(label_map=label_map, pair_order=model["pair_order"])
    return canonical(settings)


UNPACKED = "{unpacked}"


def endpoint_settings(model: Mapping[str, Any], unpacked: str | None = None) -> dict[str, Any]:
    """What a served model's query_endpoint job reads (`model`: its config block): its rendering and
    its `endpoint:` block, whose `shots` count is select_shots' (the shots come as a file), with
    {unpacked} in its serve command and model name standing for `unpacked` (serve.unpack's folder)."""
    block = dict(model["endpoint"])
    if unpacked is not None:
        block["model"] = block["model"].replace(UNPACKED, unpacked)
        block["serve"] = {**block["serve"], "command": block["serve"]["command"].replace(UNPACKED, unpacked)}
    return canonical({"premise": model["premise"], "endpoint": block})


def endpoint_gpus(model: Mapping[str, Any]) -> int:
    """The GPUs a served model's jobs ask for: none, unless its `serve:` command runs the server in
    their submission."""
    serve = model["endpoint"].get("serve")
    return int(serve.get("gpus", 1)) if serve else 0


def plan_settings(plan: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The settings `keys` of an inoculation or controlled-variance plan (inoculation_plan,
    variance_plan), for a job that depends on those alone."""
    return canonical({k: plan[k] for k in keys})


def inoculation_report_plan(config: Mapping[str, Any], plan: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the report says of the inoculation grid `plan` (None: no inoculation)."""
    return canonical({**plan, "full": config["full"]}) if plan else None
