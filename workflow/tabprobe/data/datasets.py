"""The dataset seam: what a dataset brings to the stages, declared once in its own package.

A dataset is a package beside `data/infotabs/` that declares a `Dataset`: its gold labels, its
splits, its table type and that type's Parquet contract, the premise renderings it offers, and
where its files come from. The registry below names each by a "module:attr" line, imported only
when asked for. Which probes apply to a dataset is the probes' to say (`Probe.datasets`,
`probes.probes_for`): a probe is written against a table type.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pyarrow as pa

from tabprobe import logs
from tabprobe.errors import did_you_mean


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str  # as the report and the run record name it
    # Its gold labels, in the order of a model's probabilities (InfoTabS: E, N, C).
    labels: tuple[str, ...]
    label_names: Mapping[str, str]
    splits: tuple[str, ...]
    # The in-memory table the probes edit and the renderings read: a frozen dataclass with
    # `to_arrow()` and `from_arrow(record)`, stored in Parquet as `table_struct` (a struct type).
    table_type: type
    table_struct: pa.StructType
    # Premise renderings: name -> function(table) -> text (config: a model's `premise`).
    renderings: Mapping[str, Callable[[object], str]]
    # Where the files come from and under which license, for the run record.
    source: str
    # The split a trained model learns from, and the one its dev accuracy is measured on.
    train_split: str = "train"
    dev_split: str = "dev"


# One line per dataset; `get_dataset` imports the module when first asked.
REGISTRY: dict[str, str] = {
    "infotabs": "tabprobe.data.infotabs.dataset:DATASET",
    "tabfact": "tabprobe.data.tabfact.dataset:DATASET",
}


def get_dataset(name: str) -> Dataset:
    if name not in REGISTRY:
        raise KeyError(f"unknown dataset {name!r}.{did_you_mean(name, REGISTRY)} Known: {', '.join(REGISTRY)}.")
    module, _, attr = REGISTRY[name].partition(":")
    dataset = getattr(importlib.import_module(module), attr)
    if dataset.name != name:
        raise ValueError(f"{REGISTRY[name]} declares dataset {dataset.name!r}, registered as {name!r}")
    return dataset


def warn_duplicates_kept(log: logging.Logger, split: str, noun: str, places: list[str]) -> None:
    """Every dataset's check says the same of the repeats it keeps (`duplicates: warn`): how many,
    the first five places ("line 909 repeats 903"), and how many more, on the terminal too."""
    if not places:
        return
    more = len(places) - 5
    log.warning(
        "%s: %d duplicate %s kept (`duplicates: warn`; `error` refuses them): %s%s",
        split,
        len(places),
        noun,
        ", ".join(places[:5]),
        f" and {more} more" if more > 0 else "",
        extra=logs.TERMINAL,
    )
