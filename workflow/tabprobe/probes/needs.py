"""A probe's inputs beside its split's examples and tables, as named needs (`Probe.needs`).

Each need is declared once: here the generic ones (`parse`, `relevance`), in a dataset's probes
package its own (`Dataset.needs`, e.g. `human_counterfactuals`, `programs`). A
need says which files per split it reads (and so which rule makes them), the settings of config
its jobs depend on, how the files are loaded into `ProbeContext.needs`, which examples it leaves
out, and what the coverage summary says of it. This module is the one place that resolves them:
for the rule (probe_inputs.smk: `files`, `settings`) and for generation (`load`). Adding a need
touches its declaration and the probes that read it, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabprobe import layout, schemas
from tabprobe.data.datasets import Dataset, get_dataset, resolve
from tabprobe.io import read_parquet
from tabprobe.probes.base import Example, Probe


@dataclass(frozen=True)
class Loaded:
    """What a need gives a probe (`value`, its ProbeContext.needs entry) and what the coverage
    summary of the probe's split records of it."""

    value: Any
    coverage: Mapping[str, Any]


@dataclass(frozen=True)
class Need:
    name: str
    # What it is, as a message names it ("the hypothesis parse").
    title: str
    # (dataset, split, config, results folder) -> the files it reads for the split, the first naming
    # where they are (the rule's input: Snakemake makes them first where a rule of the workflow does)
    files: Callable[[Dataset, str, Mapping[str, Any], str], list[str]]
    # (files, settings, split, examples, tables) -> Loaded
    load: Callable[..., Loaded]
    # (config) -> the settings its jobs depend on (a param: changing one re-runs its readers only)
    settings: Callable[[Mapping[str, Any]], dict] | None = None
    # (value, example) -> why the need leaves the example out, or None
    skip: Callable[[Any, Example], str | None] | None = None
    # (value, example) -> what apply gets as its third argument (the parse's Doc)
    per_example: Callable[[Any, Example], Any] | None = None
    # Made of the paper dataset's splits only (its rule reads them: parse_hypotheses, find_relevant_rows).
    paper_only: bool = False
    # Who made the examples of a probe that reads it, where that is not the probe's edits
    # (MADE_BY's key and line: people, for a set made by hand).
    made_by: tuple[str, str] | None = None
    # Its probes' examples are a set made beforehand (paired with whichever gold examples the
    # baseline predicted), not edits of every gold example.
    fixed_set: bool = False
    # The only splits that have its files (a dataset's programs, only one split has); None: every split.
    splits: tuple[str, ...] | None = None


# ---------------------------------------------------------------- the generic needs


def _parse_files(dataset: Dataset, split: str, config: Mapping[str, Any], root: str) -> list[str]:
    return [layout.parses(split, root)]


def _load_parse(files: Sequence[str], settings, split: str, examples, tables) -> Loaded:
    from tabprobe.data import parsing

    docs = parsing.read(files[0], zip(examples["uid"].to_pylist(), examples["hypothesis"].to_pylist()))
    return Loaded(docs, {})


# The hypotheses' spaCy parse (rule parse_hypotheses, once per split), every hypothesis of the
# split (probes that draw substitutes read other examples' parses); apply gets the example's Doc.
PARSE = Need(
    name="parse",
    title="the hypothesis parse (rule parse_hypotheses)",
    files=_parse_files,
    load=_load_parse,
    per_example=lambda docs, example: docs[example.uid],
    paper_only=True,
)


def _relevance_files(dataset: Dataset, split: str, config: Mapping[str, Any], root: str) -> list[str]:
    return [layout.relevance(split, root)]


def _load_relevance(files: Sequence[str], settings, split: str, examples, tables) -> Loaded:
    found = read_parquet(files[0], schemas.RELEVANCE)
    source = found["source"][0].as_py() if found.num_rows else "none"
    return Loaded(schemas.relevant_keys(found), {"relevance": source})


# Which rows each hypothesis needs (rule find_relevant_rows: the relevance source); an example
# the source does not cover is skipped, and the coverage names the source.
RELEVANCE = Need(
    name="relevance",
    title="the rows each hypothesis needs (rule find_relevant_rows)",
    files=_relevance_files,
    load=_load_relevance,
    skip=lambda relevant, example: (
        None if example.uid in relevant else "the relevance source does not cover this example"
    ),
    paper_only=True,
)

GENERIC: dict[str, Need] = {need.name: need for need in (PARSE, RELEVANCE)}


# ---------------------------------------------------------------- resolving a probe's needs


def need(name: str, dataset: str) -> Need:
    """The need `name` as `dataset`'s probes read it: a generic one, or the dataset's own."""
    own = get_dataset(dataset).needs
    if name in own:
        return resolve(own[name])
    if name in GENERIC:
        return GENERIC[name]
    known = [*GENERIC, *own]
    raise KeyError(f"no need {name!r} for {dataset}'s probes; the needs are {', '.join(known)}")


def needs_of(probe: Probe) -> dict[str, Need]:
    """The probe's needs, by name, in name order."""
    return {name: need(name, probe.datasets[0]) for name in sorted(probe.needs)}


def files(probe: Probe, split: str, config: Mapping[str, Any], root: str = layout.RESULTS) -> dict[str, list[str]]:
    """The rule's inputs for the probe's needs on `split` (a run's in `root`): need name -> its files."""
    dataset = get_dataset(probe.datasets[0])
    return {name: list(declared.files(dataset, split, config, str(root))) for name, declared in needs_of(probe).items()}


def settings(probe: Probe, config: Mapping[str, Any]) -> dict[str, dict]:
    """The settings the probe's jobs depend on, by need ({} for a probe whose needs have none)."""
    return {name: declared.settings(config) for name, declared in needs_of(probe).items() if declared.settings}


def load(
    probe: Probe,
    split: str,
    given: Mapping[str, Any],
    given_settings: Mapping[str, Mapping[str, Any]] | None,
    examples,
    tables,
) -> dict[str, Loaded]:
    """Each need of the probe loaded from its files (`given`: need name -> its path or paths, the
    rule's inputs; other keys are ignored)."""
    loaded = {}
    for name, declared in needs_of(probe).items():
        if name not in given:
            raise ValueError(f"probe {probe.name} reads {name!r}; pass its files")
        paths = [given[name]] if isinstance(given[name], str) else [str(p) for p in given[name]]
        loaded[name] = declared.load(paths, (given_settings or {}).get(name) or {}, split, examples, tables)
    return loaded


def splits_of(probe: Probe) -> tuple[str, ...] | None:
    """The only splits the probe can run on, as its needs allow (None: any split of its dataset)."""
    allowed = None
    for declared in needs_of(probe).values():
        if declared.splits is not None:
            allowed = tuple(s for s in declared.splits if allowed is None or s in allowed)
    return allowed


def paper_only(probe: Probe) -> list[str]:
    """The probe's needs that are made of the paper dataset's splits only."""
    return [name for name, declared in needs_of(probe).items() if declared.paper_only]
