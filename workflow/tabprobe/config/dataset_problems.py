"""Problems of a config that mixes datasets: each probe runs on splits of its own dataset, a
TabFact probe or model needs a TabFact copy and its baseline probe, and a two-label model cannot
answer a three-label dataset's probes. InfoTabS's own checks are in problems.py."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabprobe import LABELS
from tabprobe.config.settings import BASELINE_PROBES, model_datasets, probe_dataset, probe_splits
from tabprobe.data.datasets import get_dataset
from tabprobe.probes import REGISTRY, get_probe

# The split whose statements carry a human-written program (data/tabfact/ingest.py).
PROGRAM_SPLIT = "bootstrap"


def dataset_problems(config: dict[str, Any], probes: Mapping[str, Any], models: Mapping[str, Any]) -> list[str]:
    known = [p for p in probes if p in REGISTRY]
    problems = [p for name in known for p in _split_problems(config, name)]
    tabfact_probes = [p for p in known if probe_dataset(p) == "tabfact"]
    tabfact_models = [m for m in models if isinstance(models[m], dict) and "tabfact" in model_datasets(config, m)]
    if (tabfact_probes or tabfact_models) and not _holds_tabfact(config.get("tabfact_dir")):
        users = ", ".join((tabfact_probes + tabfact_models)[:4])
        problems.append(
            f"config key tabfact_dir: {users} read TabFact; give a local copy (the folder holding "
            "data/all_csv/, tokenized_data/ and bootstrap/; on the project machines ../shared/tabfact)"
            if not config.get("tabfact_dir")
            else f"config key tabfact_dir: {config['tabfact_dir']} has no data/all_csv/ or tokenized_data/ folder; "
            "give the folder of a TabFact copy that holds both"
        )
    if tabfact_probes and BASELINE_PROBES["tabfact"] not in probes:
        problems.append(
            f"config key probes: {', '.join(tabfact_probes[:4])} are compared with TabFact's unperturbed "
            "statements; add `tf_original: {}` to probes"
        )
    for name, model in models.items():
        if isinstance(model, dict):
            problems += _model_dataset_problems(config, name, model)
    # Inoculation and controlled variance fine-tune on InfoTabS examples, three labels.
    for block in ("inoculation", "controlled_variance"):
        chosen = (config.get(block) or {}).get("model") if isinstance(config.get(block), dict) else None
        if isinstance(models.get(chosen), dict) and "infotabs" not in model_datasets(config, chosen):
            problems.append(
                f"config key {block}.model: {chosen} does not answer InfoTabS (its datasets), on whose "
                "examples the experiment fine-tunes; name an InfoTabS model"
            )
    return problems


def _holds_tabfact(root: Any) -> bool:
    return isinstance(root, str) and all((Path(root) / d).is_dir() for d in ("data/all_csv", "tokenized_data"))


def _split_problems(config: dict[str, Any], name: str) -> list[str]:
    """A probe's splits are its dataset's; a program probe reads the programs' split only."""
    dataset = get_dataset(probe_dataset(name))
    splits = probe_splits(config, name)
    where = f"probes.{name}.splits" if (config["probes"].get(name) or {}).get("splits") else f"probes.{name}"
    other = [s for s in splits if s not in dataset.splits]
    if other:
        return [
            f"config key {where}: {name} is a probe of {dataset.title}, whose splits are "
            f"{', '.join(dataset.splits)}; {', '.join(other)} is not one of them"
        ]
    if get_probe(name).needs_programs and splits != [PROGRAM_SPLIT]:
        return [
            f"config key {where}: {name} executes the human-written programs, which only the "
            f"`{PROGRAM_SPLIT}` split's statements have; give `splits: [{PROGRAM_SPLIT}]`"
        ]
    if dataset.name == "tabfact" and "train" in splits:
        return [f"config key {where}: TabFact's train split trains its models; probe val, test or their parts"]
    return []


def _model_dataset_problems(config: dict[str, Any], name: str, model: Mapping[str, Any]) -> list[str]:
    """A model with a two-label head (trained on TabFact, or a checkpoint whose outputs map onto E
    and C only) has no NEUTRAL to answer InfoTabS with: scored there, its N column would be a 0
    read as a model that never says NEUTRAL."""
    if "infotabs" not in model_datasets(config, name):
        return []
    trained_on = (model.get("train") or {}).get("dataset", "infotabs") if isinstance(model.get("train"), dict) else None
    if trained_on == "tabfact":
        return [
            f"config key models.{name}.datasets: {name} learns TabFact's two labels (E, C) and cannot answer "
            "InfoTabS's NEUTRAL; probe it on [tabfact]"
        ]
    head = _checkpoint_head(model)
    if head is None or "N" in head.values():
        return []
    outputs = ", ".join(f"{label} -> {letter}" for label, letter in head.items())
    said = f"{name}'s checkpoint {model['checkpoint']} has a two-label head ({outputs}) and cannot answer InfoTabS's NEUTRAL"
    if model.get("datasets"):
        return [f"config key models.{name}.datasets: {said}; probe it on TabFact alone: `datasets: [tabfact]`"]
    return [
        f"config key models.{name}.checkpoint: {said}; probe it on TabFact alone: add `datasets: [tabfact]` to "
        f"models.{name}"
    ]


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
