"""The probe registry: every registered dataset's probes, imported lazily.

A dataset's own probes are the lines of its registry (probes/<dataset>/registry.py, named by its
`Dataset.probes`: name -> "module:attr"); the shared ones (probes/shared/, `SHARED` below) are
registered for every dataset whose table type they are written for, under the dataset's prefix, with
the texts its registry gives them. To add a probe: `tabprobe new-probe <name> --dataset <dataset>`
(docs/adding-a-probe.md) writes its module and its registry line; list it under `probes:` in
config.yaml. The contract test picks it up.

No job imports this file (tabprobe.code_inputs): a probe's jobs list its own module's closure.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from tabprobe.data.datasets import Dataset, all_datasets, get_dataset, names, paper_dataset, resolve
from tabprobe.errors import did_you_mean
from tabprobe.probes import needs
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.needs import need
from tabprobe.probes.transitions import TransitionRule

# The shared probes, by the name they are registered under after a dataset's prefix.
SHARED: dict[str, str] = {
    "original": "tabprobe.probes.shared.identity:SHARED",
    "hypothesis_only": "tabprobe.probes.shared.hypothesis_only:SHARED",
    "dummy_premise": "tabprobe.probes.shared.dummy_premise:SHARED",
    "swapped_table": "tabprobe.probes.shared.swapped_table:SHARED",
}


@dataclass(frozen=True)
class Entry:
    """Where a registered probe comes from: its module and attribute (a Probe; for a shared probe
    its SharedProbe), and the dataset that registers it."""

    target: str
    dataset: str
    shared: str | None = None  # the shared probe's name, for one registered from probes/shared/

    @property
    def module(self) -> str:
        return self.target.partition(":")[0]


def _registry_of(dataset: Dataset) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """A dataset's own registry lines and its texts of the shared probes."""
    if not dataset.probes:
        return {}, {}
    module = importlib.import_module(dataset.probes)
    return dict(getattr(module, "PROBES", {})), dict(getattr(module, "TEXTS", {}))


@cache
def _entries(datasets: tuple[str, ...]) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}

    def add(name: str, entry: Entry) -> None:
        if name in entries:
            raise ValueError(
                f"probe {name!r} is registered by {entries[name].dataset} and by {entry.dataset}; "
                "a probe belongs to one dataset: rename one (or give the dataset another probe_prefix)"
            )
        entries[name] = entry

    for name in datasets:
        dataset = get_dataset(name)
        own, _ = _registry_of(dataset)
        for shared, target in SHARED.items():
            fits = resolve(target).table_types
            wanted = dataset.generic_probes is None or shared in dataset.generic_probes
            if dataset.table_type.name in fits and wanted:
                add(f"{dataset.probe_prefix}{shared}", Entry(target, dataset.name, shared))
        for probe, target in own.items():
            add(probe, Entry(target, dataset.name))
    return entries


def entries() -> dict[str, Entry]:
    """name -> Entry of every registered probe (of the datasets registered now, a user's too)."""
    return _entries(tuple(names()))


class _Registry(Mapping):
    """The registered probes' names (and their entries): every dataset's, computed when asked, so a
    dataset registered from config brings its probes."""

    def __getitem__(self, name: str) -> Entry:
        return entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(entries())

    def __len__(self) -> int:
        return len(entries())


REGISTRY: Mapping[str, Entry] = _Registry()


# External probe sets named in config (`probes: {name: {external: folder}}`): folders of tables
# and hypotheses in the paper dataset's format, read as they are (rule ingest_external_probe) and scored
# like built-in expected-label probes. Registered at run time by register_external.
_EXTERNAL: dict[str, Probe] = {}


def register_external(name: str, label_change: str | None = None) -> Probe:
    """Make an external probe set known to get_probe (the workflow calls this for each one in
    config, in every process that looks probes up)."""
    if name in REGISTRY:
        raise ValueError(f"external probe set {name!r} has the name of a built-in probe; rename it")
    _EXTERNAL[name] = Probe(
        name=name,
        description=f"External probe set (tables and hypotheses given in {paper_dataset().title} format, scored "
        "against their labels).",
        apply=_read_not_generated,
        judged_by="expected",
        paper_reference="section 6, Table 7 (label-flipped counterfactuals were made by hand)"
        if label_change
        else "external",
        label_change=label_change,
        family="counterfactual" if label_change else "external",
        datasets=(paper_dataset().name,),
    )
    return _EXTERNAL[name]


def register_externals(externals: Mapping[str, str | None] | None) -> None:
    """Make the config's external probe sets (name -> label_change) known to get_probe."""
    for name, label_change in (externals or {}).items():
        register_external(name, label_change)


def _read_not_generated(*_args):
    raise TypeError("an external probe set is read from its folder (rule ingest_external_probe), not generated")


def is_external(name: str) -> bool:
    return name in _EXTERNAL


class _MadeBy(Mapping):
    """Who made a probe's examples, as the report and the run record say it: each registered
    dataset's lines ("original": its own examples, "machine": its probes' edits; `Dataset.made_by`,
    under `Dataset.made_by_key`), those of the needs whose sets people made (`Need.made_by`), and an
    external set's."""

    EXTERNAL = {"external": "an external set given in config, read as it is"}

    def _lines(self) -> dict[str, str]:
        lines = {}
        for dataset in all_datasets():
            lines.update({dataset.made_by_key(kind): text for kind, text in dataset.made_by.items()})
            for name in (*needs.GENERIC, *dataset.needs):
                declared = need(name, dataset.name)
                if declared.made_by:
                    lines[declared.made_by[0]] = declared.made_by[1]
        return {**lines, **self.EXTERNAL}

    def __getitem__(self, key: str) -> str:
        return self._lines()[key]

    def __iter__(self):
        return iter(self._lines())

    def __len__(self) -> int:
        return len(self._lines())


MADE_BY: Mapping[str, str] = _MadeBy()


def made_by(name: str) -> str:
    """Who made a probe's examples: a key of MADE_BY."""
    if is_external(name):
        return "external"
    probe = get_probe(name)
    people = [declared.made_by[0] for declared in needs.needs_of(probe).values() if declared.made_by]
    if people:
        return people[0]
    dataset = get_dataset(probe.datasets[0])
    return dataset.made_by_key("original" if name == dataset.baseline_probe else "machine")


def is_fixed_set(name: str) -> bool:
    """Whether a probe's examples are a set made beforehand (an external set, the paper's
    hand-made counterfactuals) rather than edits of every gold example: such a set pairs with
    whichever gold examples `original` predicted, and the others are scored unpaired."""
    return is_external(name) or any(declared.fixed_set for declared in needs.needs_of(get_probe(name)).values())


@cache
def _load(name: str, entry: Entry) -> Probe:
    if entry.shared:
        dataset = get_dataset(entry.dataset)
        probe = resolve(entry.target).make(dataset, name)
        texts = _registry_of(dataset)[1].get(entry.shared, {})
        return dataclasses.replace(probe, **texts) if texts else probe
    probe = resolve(entry.target)
    if probe.name != name:
        raise ValueError(f"registry line {name!r} points at a probe named {probe.name!r}")
    if probe.datasets and probe.datasets != (entry.dataset,):
        raise ValueError(f"probe {name} declares datasets {probe.datasets} but {entry.dataset} registers it")
    return dataclasses.replace(probe, datasets=(entry.dataset,))


def get_probe(name: str) -> Probe:
    if name in _EXTERNAL:
        return _EXTERNAL[name]
    registered = entries()
    if name not in registered:
        raise KeyError(
            f"unknown probe {name!r}.{did_you_mean(name, registered)} Registered probes: {', '.join(sorted(registered))}"
        )
    return _load(name, registered[name])


def option_problems(probe: Probe, options: Mapping, also_known: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(option, problem) for each option `probe` does not declare (Probe.options; with the closest it
    does, or of `also_known`: keys the workflow reads) and each value outside its schema, then what
    its `check_options` finds. The config check reports them before any job runs; generating the
    probe refuses them too. (Here, not in base.py: a probe's code inputs stay its own modules.)"""
    problems = []
    for name, value in options.items():
        if name not in probe.options:
            declared = ", ".join(sorted(probe.options)) or "none"
            hint = did_you_mean(name, [*probe.options, *also_known])
            problems.append((name, f"{probe.name} takes no option {name!r}.{hint} Its options: {declared}"))
            continue
        # Imported where a value is checked: a probe with no options needs nothing beyond torch's
        # stack (a GPU image without jsonschema still generates and benchmarks probes).
        import jsonschema

        validator = jsonschema.Draft202012Validator(probe.options[name])
        problems += [(name, error.message) for error in validator.iter_errors(value)]
    if not problems and probe.check_options:
        problems += probe.check_options(options)
    return problems


# The paper tables that pool one sampled edit per gold example from several probes: Table 4
# (hypothesis edits) and Table 7 (counterfactuals), by Probe.family; their columns by
# Probe.label_change.
def probes_for(dataset: str) -> list[str]:
    """The registered probes written for `dataset`'s tables and labels (`Probe.datasets`; this
    imports every probe module)."""
    return [name for name in REGISTRY if dataset in get_probe(name).datasets]


def transition_rules() -> dict[str, TransitionRule]:
    """probe -> its transition rule, for every registered probe judged by transitions (each
    declares its rule in its own module; this imports every probe module)."""
    probes = [get_probe(name) for name in REGISTRY]
    return {probe.name: probe.transition_rule for probe in probes if probe.judged_by == "transitions"}


POOLED_TABLES = {"table4": "hypothesis", "table7": "counterfactual"}
POOLED_COLUMNS = {"preserved": "label_preserved", "flipped": "label_flipped"}


def pooled_members(table: str, probe_names: list[str]) -> dict[str, list[str]]:
    """Each column of a pooled paper table and the probes (of `probe_names`, in that order)
    pooled into it: the paper dataset's only, the paper's tables being its (another dataset's
    statement edits may be of the same family, and the report's part of that dataset shows them apart)."""
    return pooled_columns(table, {p: get_probe(p) for p in probe_names})


def pooled_columns(table: str, declared: Mapping[str, Probe]) -> dict[str, list[str]]:
    """pooled_members over probes already loaded (name -> its declaration, in order): the report's
    plan holds them, and asks the registry nothing more."""
    family = POOLED_TABLES[table]
    paper = paper_dataset().name
    return {
        column: [
            name
            for name, probe in declared.items()
            if probe.family == family and probe.label_change == change and paper in probe.datasets
        ]
        for change, column in POOLED_COLUMNS.items()
    }


def module_path(name: str) -> str:
    """The source file of a probe, relative to the package (absolute for a user's dataset's probe,
    outside the library), so a rule can list it as input."""
    from tabprobe.code_inputs import of_module

    return (
        of_module(REGISTRY[name].module)[0]
        if not REGISTRY[name].module.startswith("tabprobe.")
        else (REGISTRY[name].module.removeprefix("tabprobe.").replace(".", "/") + ".py")
    )


def source_files(name: str) -> list[str]:
    """The probe's module and the library modules it imports, transitively, relative to the
    package, and the declarations of its dataset's own needs it reads (probes/<dataset>/needs.py):
    listed as inputs of the probe's jobs, an edit to a helper such as
    a dataset's hypothesis/edits/dates.py re-runs exactly the probes that use it."""
    from tabprobe.code_inputs import of_module

    entry = REGISTRY[name]
    own = get_dataset(entry.dataset).needs
    modules = [entry.module, *(own[n].partition(":")[0] for n in sorted(get_probe(name).needs) if n in own)]
    return sorted({path for module in modules for path in of_module(module)})


__all__ = [
    "REGISTRY",
    "POOLED_COLUMNS",
    "POOLED_TABLES",
    "get_probe",
    "is_external",
    "is_fixed_set",
    "MADE_BY",
    "made_by",
    "module_path",
    "option_problems",
    "pooled_columns",
    "pooled_members",
    "register_external",
    "register_externals",
    "source_files",
    "SHARED",
    "Example",
    "NotApplicable",
    "Probe",
    "ProbeContext",
    "ProbeExample",
]
