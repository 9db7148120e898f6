"""What only InfoTabS knows of a config (its `config_check`, data/datasets.py): a local copy must
hold the file of every split the config reads, and the paper's hand-made counterfactuals exist for
alpha1 and train only, in a copy that holds their files."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tabprobe.data.datasets import DatasetUse
from tabprobe.data.infotabs import counterfactuals
from tabprobe.data.infotabs.reading import _Problems, read_tsv, split_tsv


def problems(config: Mapping[str, Any], use: DatasetUse) -> list[str]:
    return _copy_problems(config, use) + _counterfactual_problems(config, use)


def _copy_problems(config: Mapping[str, Any], use: DatasetUse) -> list[str]:
    """A local InfoTabS copy must hold data/maindata/ and the file of every split the config reads."""
    root = config.get("infotabs_dir")
    if not isinstance(root, str):
        return []
    if not (Path(root) / "data" / "maindata").is_dir():
        return [
            f"config key infotabs_dir: {root} has no data/maindata/ folder; give the folder that holds "
            "data/maindata/ and data/tables/json/ of an InfoTabS copy, or null to download it"
        ]
    return [
        f"config key infotabs_dir: {root} lacks {split_tsv(root, split).relative_to(root)}, the {split} split this "
        f"config reads; restore the file (an InfoTabS copy has all five), or leave {split} out "
        "of `splits:` and the probes' splits"
        for split in use.splits_read
        if not split_tsv(root, split).is_file()
    ]


def _counterfactual_problems(config: Mapping[str, Any], use: DatasetUse) -> list[str]:
    """The hand-made counterfactuals exist for alpha1 and train only, and a local copy must hold
    the files of every split a probe reads them on."""
    folders = counterfactuals.FOLDERS
    problems = []
    root = config.get("counterfactuals_dir")
    for name in use.reading("human_counterfactuals"):
        splits = use.probes[name].splits
        other = [s for s in splits if s not in folders]
        if other:
            problems.append(
                f"config key probes.{name}.splits: the paper's hand-made counterfactuals exist for "
                f"{' and '.join(folders)} only, not {', '.join(other)}; give `splits: [alpha1, train]` or a part of it"
            )
        if isinstance(root, str) and not (Path(root) / "data" / "counterfactuals").is_dir():
            problems.append(
                f"config key counterfactuals_dir: {root} has no data/counterfactuals/ folder; give the folder that holds "
                "it (a copy of utahnlp/table_probing's, on the project machines ../shared/infotabs-counterfactuals), "
                f"null to download the release, or leave {name} out of `probes:`"
            )
        elif isinstance(root, str):
            problems += [
                f"config key counterfactuals_dir: {root} lacks {counterfactuals.split_tsv(root, s).relative_to(root)}, "
                f"the {s} pairs {name} reads; restore it from the release"
                for s in splits
                if s in folders and not counterfactuals.split_tsv(root, s).is_file()
            ]
    return list(dict.fromkeys(problems))


def example_lines(config: Mapping[str, Any]) -> Callable[[str], set[int] | None]:
    """split -> the line numbers of its examples in the local InfoTabS copy (None without one: a
    download is checked once it is there, by the job)."""
    root = config.get("infotabs_dir")

    def lines(split: str) -> set[int] | None:
        if not isinstance(root, str) or not split_tsv(root, split).is_file():
            return None
        read = read_tsv(split_tsv(root, split), _Problems())
        return {line for line, _ in read[1]} if read else None

    return lines
