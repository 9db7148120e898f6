"""Problems of a config as its datasets see it: every dataset it names is registered, each probe runs
on splits of its own dataset, a dataset's probes have its baseline probe beside them, a model does
not answer labels it never learnt, and then what each dataset knows of itself (its `config_check`,
data/datasets.py), given what the config asks of it (`DatasetUse`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe import LABELS
from tabprobe.config.settings import (
    dataset_splits,
    inoculation_plan,
    model_datasets,
    probe_dataset,
    probe_splits,
    variance_plan,
)
from tabprobe.data.datasets import (
    Dataset,
    DatasetUse,
    ProbeUse,
    all_datasets,
    dataset_of_training,
    get_dataset,
    names,
    paper_dataset,
    resolve,
)
from tabprobe.errors import did_you_mean
from tabprobe.probes import REGISTRY, get_probe, needs

NUMBERS = {1: "one", 2: "two", 3: "three"}


def dataset_problems(config: dict[str, Any], probes: Mapping[str, Any], models: Mapping[str, Any]) -> list[str]:
    problems = _unknown_datasets(config, models)
    if problems:
        return problems  # the rest would look the unknown names up
    known = [p for p in probes if p in REGISTRY]
    problems = [p for name in known for p in _split_problems(config, name)]
    for name, model in models.items():
        if isinstance(model, dict):
            problems += _model_dataset_problems(config, name, model)
    problems += _experiment_problems(config, models)
    for dataset in _datasets_used(config, known, models):
        use = dataset_use(config, dataset, known, models)
        if dataset.config_check:
            problems += resolve(dataset.config_check)(config, use)
    return problems


def _unknown_datasets(config: Mapping[str, Any], models: Mapping[str, Any]) -> list[str]:
    """Every dataset a model names (`datasets`, `train.dataset`) must be registered (built in, or the
    config's own `datasets:`)."""
    known = names()
    problems = []
    for name, model in models.items():
        if not isinstance(model, dict):
            continue
        train = model.get("train") if isinstance(model.get("train"), dict) else {}
        named = [("train.dataset", train.get("dataset"))] if train.get("dataset") else []
        named += [(f"datasets.{i}", d) for i, d in enumerate(model.get("datasets") or [])]
        problems += [
            f"config key models.{name}.{where}: no dataset {dataset!r}.{did_you_mean(str(dataset), known)} "
            f"Known: {', '.join(known)} (a dataset of your own goes under `datasets:`, docs/adding-a-dataset.md)"
            for where, dataset in named
            if dataset not in known
        ]
    return problems


def _datasets_used(config: Mapping[str, Any], probes: list[str], models: Mapping[str, Any]) -> list[Dataset]:
    """The datasets a config reads: the paper's, those of its probes, and those its models answer or learn."""
    used = {paper_dataset().name, *(probe_dataset(p) for p in probes)}
    for name, model in models.items():
        if isinstance(model, dict):
            used.update(model_datasets(config, name))
            if isinstance(model.get("train"), dict):
                used.add(dataset_of_training(model["train"]).name)
    return [get_dataset(name) for name in names() if name in used]


def dataset_use(
    config: Mapping[str, Any], dataset: Dataset, probes: list[str], models: Mapping[str, Any]
) -> DatasetUse:
    """What the config asks of `dataset`: its probes with their splits and needs, the models that
    answer or learn it, and the splits the workflow will read, in the dataset's order."""
    own = {
        name: ProbeUse(tuple(probe_splits(config, name)), frozenset(get_probe(name).needs))
        for name in probes
        if probe_dataset(name) == dataset.name
    }
    readers = tuple(
        name
        for name, model in models.items()
        if isinstance(model, dict)
        and (
            dataset.name in model_datasets(config, name)
            or (isinstance(model.get("train"), dict) and dataset_of_training(model["train"]).name == dataset.name)
        )
    )
    wanted = set(dataset_splits(config, dataset.name)) if isinstance(config.get("splits"), list) else set()
    for use in own.values():
        wanted.update(use.splits)
    learnt = any(
        isinstance(m, dict)
        and isinstance(m.get("train"), dict)
        and dataset_of_training(m["train"]).name == dataset.name
        for m in models.values()
    )
    if dataset.paper:
        # a prompted model's k-shot examples come from the paper dataset's train split
        if any(
            isinstance(m, dict) and isinstance(m.get(kind), dict) and m[kind].get("shots")
            for m in models.values()
            for kind in ("causal", "endpoint")
        ):
            wanted.add(dataset.train_split)
        learnt = learnt or bool(inoculation_plan(config) or variance_plan(config))
    if learnt:
        wanted.update(
            (dataset.train_split, dataset.dev_split)
        )  # fine-tuning reads train, and dev to pick its checkpoint
    return DatasetUse(own, readers, tuple(s for s in dataset.splits if s in wanted))


def _split_problems(config: dict[str, Any], name: str) -> list[str]:
    """A probe's splits are its dataset's, and a need made of the paper dataset's splits only (the
    parse, the relevance source) is not read by another dataset's probe."""
    dataset = get_dataset(probe_dataset(name))
    where = f"probes.{name}.splits" if (config["probes"].get(name) or {}).get("splits") else f"probes.{name}"
    paper_needs = needs.paper_only(get_probe(name)) if not dataset.paper else []
    if paper_needs:
        return [
            f"config key probes.{name}: {name} is a probe of {dataset.title} and reads {', '.join(paper_needs)}, "
            f"which the workflow makes of {paper_dataset().title}'s splits only; leave it out, or read another need"
        ]
    other = [s for s in probe_splits(config, name) if s not in dataset.splits]
    if other:
        hint = did_you_mean(other[0], dataset.splits) if len(other) == 1 else ""
        return [
            f"config key {where}: {name} is a probe of {dataset.title}, whose splits are "
            f"{', '.join(dataset.splits)}; {', '.join(other)} is not one of them{'.' + hint if hint else ''}"
        ]
    return []


def _model_dataset_problems(config: dict[str, Any], name: str, model: Mapping[str, Any]) -> list[str]:
    """A model has the labels of every dataset it answers: a head trained on a dataset has that
    dataset's labels, a checkpoint's head those its outputs map onto. A two-label head has no NEUTRAL
    for a three-label dataset: scored there, its N column would be a 0 read as a model that never
    says NEUTRAL."""
    if isinstance(model.get("train"), dict):
        learnt = dataset_of_training(model["train"])
        problems = []
        for answered in model_datasets(config, name):
            missing = [label for label in get_dataset(answered).labels if label not in learnt.labels]
            if missing:
                names_of = get_dataset(answered).label_names
                problems.append(
                    f"config key models.{name}.datasets: {name} learns {learnt.title}'s "
                    f"{NUMBERS.get(len(learnt.labels), len(learnt.labels))} labels ({', '.join(learnt.labels)}) and cannot "
                    f"answer {get_dataset(answered).title}'s {', '.join(names_of[label] for label in missing)}; "
                    f"probe it on [{learnt.name}]"
                )
        return problems
    head = _checkpoint_head(model)
    if head is None:
        return []
    letters = set(head.values())
    outputs = ", ".join(f"{label} -> {letter}" for label, letter in head.items())
    # The datasets the head can answer, for the message's way out.
    fitting = [d for d in all_datasets() if set(d.labels) <= letters]
    way_out = " and ".join(d.title for d in fitting) or "none of the datasets"
    listed = ", ".join(d.name for d in fitting)
    for answered in model_datasets(config, name):
        dataset = get_dataset(answered)
        missing = [label for label in dataset.labels if label not in letters]
        if not missing:
            continue
        said = (
            f"{name}'s checkpoint {model['checkpoint']} has a {NUMBERS.get(len(letters), len(letters))}-label head "
            f"({outputs}) and cannot answer {dataset.title}'s {', '.join(dataset.label_names[label] for label in missing)}"
        )
        if model.get("datasets"):
            return [f"config key models.{name}.datasets: {said}; probe it on {way_out} alone: `datasets: [{listed}]`"]
        return [
            f"config key models.{name}.checkpoint: {said}; probe it on {way_out} alone: add `datasets: [{listed}]` to "
            f"models.{name}"
        ]
    return []


def _experiment_problems(config: dict[str, Any], models: Mapping[str, Any]) -> list[str]:
    """Inoculation and controlled variance fine-tune on the paper dataset's examples, in its labels."""
    paper = paper_dataset()
    problems = []
    for block in ("inoculation", "controlled_variance"):
        chosen = (config.get(block) or {}).get("model") if isinstance(config.get(block), dict) else None
        if isinstance(models.get(chosen), dict) and paper.name not in model_datasets(config, chosen):
            problems.append(
                f"config key {block}.model: {chosen} does not answer {paper.title} (its datasets), on whose "
                f"examples the experiment fine-tunes; name an {paper.title} model"
            )
    return problems


def _checkpoint_head(model: Mapping[str, Any]) -> dict[str, str] | None:
    """A checkpoint's output labels, in output order, and the letter each maps onto (read from its
    config.json and the model's `labels:`); None for a model that is no checkpoint, or one whose
    files or labels the checks of problems.py refuse (they say why)."""
    from tabprobe.errors import TabprobeError
    from tabprobe.models.checkpoints import checkpoint_labels, label_order

    if not isinstance(model.get("checkpoint"), str):
        return None
    labels = model.get("labels") if isinstance(model.get("labels"), dict) else None
    try:
        id2label = checkpoint_labels(model["checkpoint"])
        order = label_order(id2label, labels, model["checkpoint"])
    except TabprobeError:
        return None
    letters = {index: letter for letter, index in zip(LABELS, order) if index is not None}
    return {id2label[index]: letters[index] for index in sorted(id2label)}
