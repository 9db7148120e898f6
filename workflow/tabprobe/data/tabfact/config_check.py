"""What only TabFact knows of a config (its `config_check`, data/datasets.py): its probes and models
need a local copy, every probe is compared with `tf_original`, a program probe reads the programs'
split only, and train trains its models."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabprobe.data.datasets import DatasetUse
from tabprobe.data.tabfact.reading import BOOTSTRAP

BASELINE = "tf_original"


def problems(config: Mapping[str, Any], use: DatasetUse) -> list[str]:
    probes = list(use.probes)
    problems = []
    if (probes or use.models) and not _holds_tabfact(config.get("tabfact_dir")):
        users = ", ".join([*probes, *use.models][:4])
        problems.append(
            f"config key tabfact_dir: {users} read TabFact; give a local copy (the folder holding "
            "data/all_csv/, tokenized_data/ and bootstrap/; on the project machines ../shared/tabfact)"
            if not config.get("tabfact_dir")
            else f"config key tabfact_dir: {config['tabfact_dir']} has no data/all_csv/ or tokenized_data/ folder; "
            "give the folder of a TabFact copy that holds both"
        )
    if probes and BASELINE not in probes:
        problems.append(
            f"config key probes: {', '.join(probes[:4])} are compared with TabFact's unperturbed "
            f"statements; add `{BASELINE}: {{}}` to probes"
        )
    return problems + [p for name in probes for p in _split_problems(config, name, use)]


def _holds_tabfact(root: Any) -> bool:
    return isinstance(root, str) and all((Path(root) / d).is_dir() for d in ("data/all_csv", "tokenized_data"))


def _split_problems(config: Mapping[str, Any], name: str, use: DatasetUse) -> list[str]:
    """A program probe reads the programs' split only; train trains the models."""
    splits = list(use.probes[name].splits)
    where = f"probes.{name}.splits" if (config["probes"].get(name) or {}).get("splits") else f"probes.{name}"
    if "programs" in use.probes[name].needs and splits != [BOOTSTRAP]:
        return [
            f"config key {where}: {name} executes the human-written programs, which only the "
            f"`{BOOTSTRAP}` split's statements have; give `splits: [{BOOTSTRAP}]`"
        ]
    if "train" in splits:
        return [f"config key {where}: TabFact's train split trains its models; probe val, test or their parts"]
    return []
