"""The dataset seam: all a stage asks of a dataset, declared once in the dataset's own package.

A dataset is a package that declares `DATASET = Dataset(...)`: its labels and splits, its table
type (data/infobox/, data/relational/: shared by the datasets whose tables have that shape), the
config keys it reads, where its files lie, its check and ingest jobs, its baseline probe and its own
probes, the inputs it provides to probes, its config check, its part of the report and who made
its examples. The stages ask `get_dataset(name)`; no stage names a dataset.

The built-in datasets are the packages beside this module that hold a `dataset.py`
(data/<name>/dataset.py), found by their files and imported only when asked for. A user's own
dataset is any importable module named in config (`datasets: {<name>: {package: ...}}`,
docs/adding-a-dataset.md): `use_config` registers it in the workflow's process and hands it to
every job the process starts (by environment, as the library's own folder is handed).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tabprobe import layout, logs
from tabprobe.data.table_type import TableType
from tabprobe.errors import did_you_mean

# How a job started by the workflow learns the user's datasets: name -> {package, path}, as JSON.
ENVIRONMENT = "TABPROBE_DATASETS"


@dataclass(frozen=True)
class ConfigKeys:
    """Where a dataset's settings are in config: its data folder, the splits its probes run on where
    a probe names none, and those under `full: true` (used when given)."""

    dir: str
    splits: str
    full_splits: str


@dataclass(frozen=True)
class Ingest:
    """A dataset's check and ingest jobs (rules check_<name> and ingest_<name>, rules/data.smk), each
    a "module:function". The check reads the raw split and writes nothing but its mark, so that bad
    input leaves the last good ingest in place; the ingest writes the split's examples, tables and
    summary (and any `outputs` of its own)."""

    # (root, split, out, on_duplicate, **check settings)
    check: str
    # (root, split, examples_out, tables_out, summary_out, <output>_out for each of `outputs`, on_duplicate)
    ingest: str
    # (config, split) -> what the copy of the split holds, by content: a param of the ingest, so that
    # where the copy lies (or how its path is spelled) re-runs nothing and an edit re-ingests
    digest: str
    # (config) -> the folder the jobs read; None: the config key of the data folder
    root: str | None = None
    # (config) -> files another rule makes that the check reads (a download, where there is no local copy)
    downloads: str | None = None
    # The check's own settings: job argument -> config key (params of the check)
    check_settings: Mapping[str, str] = field(default_factory=dict)
    # Arguments the ingest job is always given (e.g. verify=False where the check verified the copy)
    ingest_arguments: Mapping[str, Any] = field(default_factory=dict)
    # The ingest's outputs beyond examples, tables and summary: name -> file name in its data folder
    outputs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OwnSection:
    """A section only a dataset's part of the report has: the probes that declare it
    (`Probe.report_section` = `name`), each against its expected label beside the baseline probe."""

    name: str
    title: str
    intro: str  # what its probes do and how their labels are known
    caption: str
    splits: tuple[str, ...] = ()  # the splits its probes are read on (empty: every split they have)


@dataclass(frozen=True)
class PublishedAccuracy:
    """Accuracy a paper published on a dataset's splits, printed beside the run's (report.accuracy)."""

    rows: Mapping[str, Mapping[str, float]]  # the paper's row name -> split -> accuracy (%)
    # The row a model is measured against: a hypothesis-only model's, and every other model's.
    hypothesis_only_row: str
    premise_row: str
    # The sentence after the table that says where the rows come from, and the words opening the gaps.
    source: str
    gaps: str


@dataclass(frozen=True)
class ReportPart:
    """What the report says of a dataset beyond what every dataset shares."""

    # The splits a probe's failing examples and headline numbers are drawn from, first found first.
    showcase_order: tuple[str, ...]
    # Its own part's heading ("" for the paper's dataset, whose sections are the report's main body).
    title: str = ""
    # The order its part's tables list splits in (empty: the showcase order).
    split_order: tuple[str, ...] = ()
    # Chance accuracy: "uniform" where its splits hold each label in equal shares (1 / labels);
    # "majority": the commoner label's share of the examples scored, split by split.
    chance: str = "majority"
    # The paragraphs under its part's heading: what the dataset is, and what its numbers rest on
    # ("{trained}" stands for the sentence that names the models this run trained on it).
    intro: tuple[str, ...] = ()
    # The splits its verdicts read, first measured first.
    verdict_splits: tuple[str, ...] = ()
    # How its part's verdicts read its probes, one rule a paragraph, as printed under its verdicts
    # ("{splits}": its verdict splits; "{lead}": the lead over the majority class a "no drop" needs).
    verdict_rules: tuple[str, ...] = ()
    # Sections only it has (OwnSection), after its record probes' transitions.
    sections: tuple[OwnSection, ...] = ()
    # "module:attr" of the PublishedAccuracy shown beside its accuracy (a paper's figures live on a
    # floor above the datasets'), or None.
    published_accuracy: str | None = None
    # Paragraphs of its own the shared sections print, by key: what its paper's sections say of
    # its probes by name (the probes' names belong to its packages, not to the report's).
    texts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str  # as the report and the run record name it
    # Its gold labels, in the order of a model's probabilities (a subset of E, N, C in that order).
    labels: tuple[str, ...]
    label_names: Mapping[str, str]
    splits: tuple[str, ...]
    # The shape of its tables, with their Parquet struct and renderings (data/table_type.py).
    table_type: TableType
    # Where the files come from and under which license, for the run record.
    source: str
    ingest: Ingest
    # The unperturbed probe every other probe of the dataset is compared with.
    baseline_probe: str
    report: ReportPart
    # Where its settings are in config; None: its block `datasets.<name>` (dir, splits, full_splits).
    config_keys: ConfigKeys | None = None
    # The splits its probes run on where config names none.
    default_splits: tuple[str, ...] = ()
    # Its data files lie in results/data/<folder>/ ("" : results/data/ itself); None: its name.
    folder: str | None = None
    # The module holding its own probes' registry lines (`PROBES`: name -> "module:attr").
    probes: str | None = None
    # The generic probes (probes/shared/) that fit its table type and labels are registered for it
    # under this prefix ("tf_" + "original"); one dataset keeps their names bare. `generic_probes`
    # narrows them to those named (None: every one that fits).
    probe_prefix: str = ""
    generic_probes: tuple[str, ...] | None = None
    # Inputs only it provides to probes (probes/needs.py): need name -> "module:attr" of its Need.
    needs: Mapping[str, str] = field(default_factory=dict)
    # "module:function"(config, DatasetUse) -> problems of a config only it knows ("config key ...: ...").
    config_check: str | None = None
    # "module:function"(config) -> function(split) -> the line numbers of its examples in the copy
    # (None where the copy is not at hand yet), for the config check of curation files.
    example_lines: str | None = None
    # "module:function"(config) -> its entry in the run record's `data` (the copy the numbers rest on).
    provenance: str | None = None
    # Who made its examples: "original" (its own, as released) and "machine" (its probes' edits).
    made_by: Mapping[str, str] = field(default_factory=dict)
    # The dataset of the paper whose protocol tabprobe implements: its probes fill the paper's tables,
    # inoculation and controlled variance fine-tune on it, external probe sets are in its format, the
    # hypothesis parse and the relevance source are made of its splits, and a model that names no
    # dataset answers it. Exactly one registered dataset is.
    paper: bool = False
    # Premise renderings of its own, beside its table type's.
    own_renderings: Mapping[str, Callable[[object], str]] = field(default_factory=dict)
    # The split a trained model learns from, and the one its dev accuracy is measured on.
    train_split: str = "train"
    dev_split: str = "dev"

    @property
    def renderings(self) -> dict[str, Callable[[object], str]]:
        return {**self.table_type.renderings, **self.own_renderings}

    @property
    def table_struct(self):
        return self.table_type.struct

    @property
    def data_folder(self) -> str:
        """Its data folder under a run's results: data/ (the paper's dataset, where runs before the
        seam put it) or data/<name>/, since split names repeat across datasets."""
        folder = self.name if self.folder is None else self.folder
        return f"{layout.DATA}/{folder}" if folder else layout.DATA

    def data_file(self, name: str, root: str | Path = layout.RESULTS) -> str:
        return layout.data_file(name, root, self.data_folder)

    def examples(self, split: str, root: str | Path = layout.RESULTS) -> str:
        """A split's gold examples (schemas.EXAMPLES)."""
        return layout.examples(split, root, self.data_folder)

    def tables(self, split: str, root: str | Path = layout.RESULTS) -> str:
        """The tables a split's examples read (its table type's `tables` schema)."""
        return layout.tables(split, root, self.data_folder)

    def data_summary(self, split: str, root: str | Path = layout.RESULTS) -> str:
        return layout.data_summary(split, root, self.data_folder)

    def data_check(self, split: str, root: str | Path = layout.RESULTS) -> str:
        return layout.data_check(split, root, self.data_folder)

    def ingest_outputs(self, split: str, root: str | Path = layout.RESULTS) -> dict[str, str]:
        """Every file its ingest writes for a split: examples, tables, summary and its own."""
        files = {
            "examples": self.examples(split, root),
            "tables": self.tables(split, root),
            "summary": self.data_summary(split, root),
        }
        return {
            **files,
            **{
                name: self.data_file(pattern.format(split=split), root) for name, pattern in self.ingest.outputs.items()
            },
        }

    def setting(self, config: Mapping[str, Any], key: str) -> Any:
        """Its setting `key` ("dir", "splits" or "full_splits") from config, None where config has none."""
        if self.config_keys is not None:
            return config.get(getattr(self.config_keys, key))
        block = (config.get("datasets") or {}).get(self.name) or {}
        return block.get(key)

    def config_key(self, key: str) -> str:
        """The config key of its setting `key`, as an error names it."""
        return getattr(self.config_keys, key) if self.config_keys is not None else f"datasets.{self.name}.{key}"

    def root(self, config: Mapping[str, Any]) -> str | None:
        """The folder its check and ingest read."""
        if self.ingest.root:
            return resolve(self.ingest.root)(config)
        return self.setting(config, "dir")

    def made_by_key(self, kind: str) -> str:
        """The run record's name for who made an example of its probes ("original", "machine"):
        the paper dataset's names bare, another's after its name."""
        return kind if self.paper else f"{self.name}_{kind}"


@dataclass(frozen=True)
class ProbeUse:
    """One probe of a dataset as a config runs it: its splits and the inputs it reads (its needs)."""

    splits: tuple[str, ...]
    needs: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DatasetUse:
    """What a config asks of one dataset (config/dataset_problems.py hands it to its `config_check`):
    its probes, the models that answer or learn it, and the splits the workflow will read."""

    probes: Mapping[str, ProbeUse]
    models: tuple[str, ...]
    splits_read: tuple[str, ...]

    def reading(self, need: str) -> list[str]:
        """Its probes that read `need`."""
        return [name for name, use in self.probes.items() if need in use.needs]


def resolve(target: str) -> Any:
    """The object a "module:attr" line names, imported now."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@cache
def _built_in() -> dict[str, str]:
    """name -> "module:attr" of each package beside this module that declares a dataset."""
    here = Path(__file__).resolve().parent
    package = __name__.rpartition(".")[0]
    return {p.parent.name: f"{package}.{p.parent.name}.dataset:DATASET" for p in sorted(here.glob("*/dataset.py"))}


# A user's datasets, registered in this process: name -> {"package": ..., "path": ...}.
_USER: dict[str, dict[str, str | None]] = {}


def _user() -> dict[str, dict[str, str | None]]:
    """The user's datasets: registered here, or handed down by the process that started this one."""
    handed = os.environ.get(ENVIRONMENT)
    if handed:
        for name, entry in json.loads(handed).items():
            _USER.setdefault(name, entry)
    return _USER


def register(name: str, package: str, path: str | None = None) -> None:
    """Make a user's dataset known to get_dataset: `package` is the module that declares it
    (`DATASET`, or "module:attr"), importable from `path` where given."""
    if name in _built_in():
        raise ValueError(f"config key datasets.{name}: {name} is a built-in dataset; give yours another name")
    entry = {"package": package, "path": path}
    if _USER.get(name) != entry:
        _USER[name] = entry
        get_dataset.cache_clear()
    if path and path not in sys.path:
        sys.path.insert(0, path)


def forget(name: str) -> None:
    """Unregister a user's dataset (one whose package does not import: the config check says so,
    and the rest of the check goes on without it)."""
    _USER.pop(name, None)
    get_dataset.cache_clear()


def use_config(config: Mapping[str, Any]) -> None:
    """Register the config's own datasets (`datasets:`) here and for every job this process starts:
    their entries go into the environment the jobs inherit, and their folders into PYTHONPATH."""
    for name, block in sorted((config.get("datasets") or {}).items()):
        register(name, block["package"], block.get("path"))
    if not _USER:
        return
    os.environ[ENVIRONMENT] = json.dumps(_USER, sort_keys=True)
    paths = [entry["path"] for entry in _USER.values() if entry.get("path")]
    others = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in paths]
    os.environ["PYTHONPATH"] = os.pathsep.join([*others, *paths])


def names() -> list[str]:
    """Every registered dataset: the built-in ones (sorted), then the user's."""
    return [*_built_in(), *(n for n in _user() if n not in _built_in())]


@cache
def get_dataset(name: str) -> Dataset:
    if name in _built_in():
        target = _built_in()[name]
    elif name in _user():
        entry = _user()[name]
        if entry.get("path") and entry["path"] not in sys.path:
            sys.path.insert(0, entry["path"])
        target = entry["package"] if ":" in entry["package"] else f"{entry['package']}:DATASET"
    else:
        known = names()
        raise KeyError(f"unknown dataset {name!r}.{did_you_mean(name, known)} Known: {', '.join(known)}.")
    try:
        dataset = resolve(target)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"dataset {name}: {target} does not import ({error}); check its package and path") from error
    if not isinstance(dataset, Dataset):
        raise ValueError(f"dataset {name}: {target} is a {type(dataset).__name__}, not a tabprobe Dataset")
    if dataset.name != name:
        raise ValueError(f"{target} declares dataset {dataset.name!r}, registered as {name!r}")
    return dataset


def all_datasets() -> list[Dataset]:
    return [get_dataset(name) for name in names()]


def paper_dataset() -> Dataset:
    """The dataset of the paper whose protocol tabprobe implements (`Dataset.paper`)."""
    papers = [d for d in all_datasets() if d.paper]
    if len(papers) != 1:
        raise ValueError(f"exactly one registered dataset declares paper=True; found {[d.name for d in papers]}")
    return papers[0]


def paper_data_root(config: Mapping[str, Any]) -> str | None:
    """The folder the paper dataset's jobs read (the report names it)."""
    return paper_dataset().root(config)


def dataset_of_training(train: Mapping[str, Any] | None) -> Dataset:
    """The dataset a `train:` block learns: its `dataset`, else the paper's."""
    name = (train or {}).get("dataset")
    return get_dataset(name) if name else paper_dataset()


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
