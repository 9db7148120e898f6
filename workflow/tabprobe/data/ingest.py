"""Rules check_<dataset> and ingest_<dataset> (rules/data.smk makes one pair per dataset): the
dataset's own job functions, looked up from its declaration (data/datasets.py, `Dataset.ingest`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe.data.datasets import get_dataset, resolve


def check_dataset(
    dataset: str, config: Mapping[str, Any], split: str, out: str, on_duplicate: str, settings: Mapping[str, Any]
) -> None:
    """Rule check_<dataset>: the raw split read and checked, before its ingest replaces anything.
    `config`: the run's, for the folder the copy lies in (not a param: where it lies re-runs nothing);
    `settings`: the check's own (`Ingest.check_settings`)."""
    declared = get_dataset(dataset)
    resolve(declared.ingest.check)(
        root=declared.root(config), split=split, out=out, on_duplicate=on_duplicate, **settings
    )


def ingest_dataset(
    dataset: str, config: Mapping[str, Any], split: str, outputs: Mapping[str, str], on_duplicate: str
) -> None:
    """Rule ingest_<dataset>: the split's examples, tables and summary (and the dataset's own
    outputs, `Ingest.outputs`), each `<name>_out` of its job function."""
    declared = get_dataset(dataset)
    resolve(declared.ingest.ingest)(
        root=declared.root(config),
        split=split,
        **{f"{name}_out": path for name, path in outputs.items()},
        on_duplicate=on_duplicate,
        **declared.ingest.ingest_arguments,
    )
