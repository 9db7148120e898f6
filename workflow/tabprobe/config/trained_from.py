"""A model trained from another model of the run: `train: {base: {model: NAME}}`.

The premise model that first beat the hypothesis-only model on the CPU budget starts from that
model's weights (docs/models.md, the recipe search): it begins where the hypothesis alone gets it and
has only the table's part to learn in its few thousand training examples. Its training then waits for
NAME's checkpoint (resources/models/NAME) and reads it whole, classification head included, so NAME's
head must answer this model's labels: the same ones, or more, of which `new_classifier` keeps this model's
outputs in this model's order. A fact-checking model (E, C) started from an NLI one (E, N, C) begins with
that model's entailment and contradiction outputs, what the NLI model learnt carried over to fact checking. Config
checks (`base_model_problems`) refuse what that cannot train from: a model that is not trained by the run,
a chain that comes back to itself, a head without an output for one of the labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe import layout
from tabprobe.data.datasets import dataset_of_training
from tabprobe.errors import did_you_mean

# The key of `train.base` that names a model of the run instead of a folder.
BASE_MODEL_KEY = "model"


def base_model(train: Mapping[str, Any] | None) -> str | None:
    """The model of the run a `train:` block starts from (`base: {model: NAME}`), else None (a folder
    or a pkg:// location)."""
    base = (train or {}).get("base")
    return base.get(BASE_MODEL_KEY) if isinstance(base, Mapping) else None


def resolved_base(train: Mapping[str, Any]) -> str:
    """The folder training reads its starting weights from: the named model's checkpoint, as its
    train_model job writes it (relative to the working directory, as every rule's output), else the
    location as written."""
    name = base_model(train)
    return layout.trained_model(name) if name else train["base"]


def base_model_problems(models: Mapping[str, Any]) -> list[str]:
    """Problems of `train.base: {model: NAME}` the jobs would meet only after hours of upstream work:
    NAME not a model the run trains, a chain of bases that returns to the model, or a head of other
    labels than the dataset this model learns."""
    problems = []
    for name, model in models.items():
        if not isinstance(model, Mapping) or not isinstance(model.get("train"), Mapping):
            continue
        start = base_model(model["train"])
        if start is None:
            continue
        key = f"config key models.{name}.train.base.{BASE_MODEL_KEY}"
        if start not in models:
            problems.append(f"{key}: no model {start!r} in config.{did_you_mean(start, models)}")
            continue
        other = models[start]
        if not isinstance(other, Mapping) or not isinstance(other.get("train"), Mapping):
            problems.append(
                f"{key}: {start} is not trained by the run (it has no `train:` block); start from a checkpoint "
                "folder you have with `base: <folder>` instead"
            )
            continue
        chain = _chain(models, name)
        if chain[-1] == name:
            problems.append(
                f"{key}: the bases come back to {name} ({' -> '.join(chain)}); one must start from an encoder"
            )
            continue
        problems += _label_problems(key, name, model["train"], start, other["train"])
    return problems


def _chain(models: Mapping[str, Any], name: str) -> list[str]:
    """name, the model it starts from, the one that starts from, ...: up to a model that starts from a
    folder, or until a model comes back (the last name then repeats an earlier one)."""
    chain = [name]
    while True:
        model = models.get(chain[-1])
        start = base_model(model.get("train")) if isinstance(model, Mapping) else None
        if start is None or start not in models:
            return chain
        chain.append(start)
        if start in chain[:-1]:
            return chain


def _label_problems(
    key: str, name: str, train: Mapping[str, Any], start: str, start_train: Mapping[str, Any]
) -> list[str]:
    try:
        labels, start_labels = dataset_of_training(train).labels, dataset_of_training(start_train).labels
    except (KeyError, ValueError):
        return []  # an unknown dataset is dataset_problems' to say
    if set(labels) <= set(start_labels):
        return []  # the same head, or its outputs for these labels (models/checkpoints.narrowed_head)
    return [
        f"{key}: {start}'s head answers {', '.join(start_labels)} and {name} learns {', '.join(labels)}; a model "
        "starts from another's head only where it learns the same labels or some of them (an NLI head's E and C "
        "outputs become a fact-checking head), never labels the other's head has no output for"
    ]
