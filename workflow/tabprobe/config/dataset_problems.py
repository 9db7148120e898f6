"""Problems of a config that mixes datasets: each probe runs on splits of its own dataset, a
TabFact probe or model needs a TabFact copy and its baseline probe, and a two-label model cannot
answer a three-label dataset's probes. InfoTabS's own checks are in problems.py."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
    """A model trained on TabFact has a two-label head: it has no NEUTRAL to answer InfoTabS with."""
    trained_on = (model.get("train") or {}).get("dataset", "infotabs") if isinstance(model.get("train"), dict) else None
    if trained_on == "tabfact" and "infotabs" in model_datasets(config, name):
        return [
            f"config key models.{name}.datasets: {name} learns TabFact's two labels (E, C) and cannot answer "
            "InfoTabS's NEUTRAL; probe it on [tabfact]"
        ]
    return []
