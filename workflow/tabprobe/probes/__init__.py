"""The probe registry: one line per probe, imported lazily.

To add a probe: write `tabprobe/probes/<name>.py` defining `PROBE = Probe(...)`, add one line
below, and list the name under `probes:` in config.yaml. The contract test picks it up.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache

from tabprobe.data.datasets import all_datasets, get_dataset, paper_dataset
from tabprobe.errors import did_you_mean
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.transitions import TransitionRule

REGISTRY: dict[str, str] = {
    "original": "tabprobe.probes.original:PROBE",
    "row_deletion": "tabprobe.probes.row_deletion:PROBE",
    "row_insertion": "tabprobe.probes.row_insertion:PROBE",
    "row_update": "tabprobe.probes.row_update:PROBE",
    "row_permutation": "tabprobe.probes.row_permutation:PROBE",
    "row_deletion_insertion": "tabprobe.probes.row_deletion_insertion:PROBE",
    "entity_flip": "tabprobe.probes.entity_flip:PROBE",
    "entity_preserve": "tabprobe.probes.entity_preserve:PROBE",
    "number_preserve": "tabprobe.probes.number_preserve:PROBE",
    "number_flip": "tabprobe.probes.number_flip:PROBE",
    "temporal_preserve": "tabprobe.probes.temporal_preserve:PROBE",
    "temporal_flip": "tabprobe.probes.temporal_flip:PROBE",
    "duration_preserve": "tabprobe.probes.duration_preserve:PROBE",
    "duration_flip": "tabprobe.probes.duration_flip:PROBE",
    "negation_flip": "tabprobe.probes.negation_flip:PROBE",
    "modifier_preserve": "tabprobe.probes.modifier_preserve:PROBE",
    "quantifier_flip": "tabprobe.probes.quantifier_flip:PROBE",
    "quantifier_preserve": "tabprobe.probes.quantifier_preserve:PROBE",
    "hypothesis_only": "tabprobe.probes.hypothesis_only:PROBE",
    "dummy_premise": "tabprobe.probes.dummy_premise:PROBE",
    "swapped_table": "tabprobe.probes.swapped_table:PROBE",
    "num_words": "tabprobe.probes.num_words:PROBE",
    "num_decimal": "tabprobe.probes.num_decimal:PROBE",
    "num_verbosity": "tabprobe.probes.num_verbosity:PROBE",
    "num_distractor_rows": "tabprobe.probes.num_distractor_rows:PROBE",
    "num_comparative": "tabprobe.probes.num_comparative:PROBE",
    "num_noise": "tabprobe.probes.num_noise:PROBE",
    "num_distribution": "tabprobe.probes.num_distribution:PROBE",
    "num_logic": "tabprobe.probes.num_logic:PROBE",
    "relevant_row_deletion": "tabprobe.probes.relevant_row_deletion:PROBE",
    "irrelevant_row_deletion": "tabprobe.probes.irrelevant_row_deletion:PROBE",
    "evidence_selection": "tabprobe.probes.evidence_selection:PROBE",
    "cf_row_swap": "tabprobe.probes.cf_row_swap:PROBE",
    "cf_title_swap": "tabprobe.probes.cf_title_swap:PROBE",
    "cf_human": "tabprobe.probes.cf_human:PROBE",
    "tf_original": "tabprobe.probes.tf_original:PROBE",
    "record_deletion": "tabprobe.probes.record_deletion:PROBE",
    "record_insertion": "tabprobe.probes.record_insertion:PROBE",
    "record_permutation": "tabprobe.probes.record_permutation:PROBE",
    "column_permutation": "tabprobe.probes.column_permutation:PROBE",
    "program_record_deletion": "tabprobe.probes.program_record_deletion:PROBE",
    "relevant_record_deletion": "tabprobe.probes.relevant_record_deletion:PROBE",
    "irrelevant_record_deletion": "tabprobe.probes.irrelevant_record_deletion:PROBE",
    "program_cell_update": "tabprobe.probes.program_cell_update:PROBE",
    "tf_entity_flip": "tabprobe.probes.tf_entity_flip:PROBE",
    "tf_number_flip": "tabprobe.probes.tf_number_flip:PROBE",
    "tf_negation": "tabprobe.probes.tf_negation:PROBE",
    "tf_entity_rename": "tabprobe.probes.tf_entity_rename:PROBE",
    "tf_hypothesis_only": "tabprobe.probes.tf_hypothesis_only:PROBE",
    "tf_swapped_table": "tabprobe.probes.tf_swapped_table:PROBE",
}

# External probe sets named in config (`probes: {name: {external: folder}}`): folders of tables
# and hypotheses in InfoTabS format, read as they are (rule ingest_external_probe) and scored
# like built-in expected-label probes. Registered at run time by register_external.
_EXTERNAL: dict[str, Probe] = {}


def register_external(name: str, label_change: str | None = None) -> Probe:
    """Make an external probe set known to get_probe (the workflow calls this for each one in
    config, in every process that looks probes up)."""
    if name in REGISTRY:
        raise ValueError(f"external probe set {name!r} has the name of a built-in probe; rename it")
    _EXTERNAL[name] = Probe(
        name=name,
        description="External probe set (tables and hypotheses given in InfoTabS format, scored against their labels).",
        apply=_read_not_generated,
        judged_by="expected",
        paper_reference="section 6, Table 7 (label-flipped counterfactuals were made by hand)"
        if label_change
        else "external",
        label_change=label_change,
        family="counterfactual" if label_change else "external",
    )
    get_probe.cache_clear()
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
    under `Dataset.made_by_key`), the people of a set made by hand, and an external set's."""

    FIXED = {
        "human": "human-made: the paper's hand-made counterfactual tables (release), read as they are",
        "external": "an external set given in config, read as it is",
    }

    def _lines(self) -> dict[str, str]:
        lines = dict(self.FIXED)
        for dataset in all_datasets():
            lines.update({dataset.made_by_key(kind): text for kind, text in dataset.made_by.items()})
        return lines

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
    if probe.needs_human_counterfactuals:
        return "human"
    dataset = get_dataset(probe.datasets[0])
    return dataset.made_by_key("original" if name == dataset.baseline_probe else "machine")


def is_fixed_set(name: str) -> bool:
    """Whether a probe's examples are a set made beforehand (an external set, the paper's
    hand-made counterfactuals) rather than edits of every gold example: such a set pairs with
    whichever gold examples `original` predicted, and the others are scored unpaired."""
    return is_external(name) or get_probe(name).needs_human_counterfactuals


@cache
def get_probe(name: str) -> Probe:
    if name in _EXTERNAL:
        return _EXTERNAL[name]
    try:
        target = REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown probe {name!r}.{did_you_mean(name, REGISTRY)} Registered probes: {', '.join(sorted(REGISTRY))}"
        ) from None
    module_name, attr = target.split(":")
    probe = getattr(importlib.import_module(module_name), attr)
    if probe.name != name:
        raise ValueError(f"registry line {name!r} points at a probe named {probe.name!r}")
    return probe


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
    family = POOLED_TABLES[table]
    paper = paper_dataset().name
    return {
        column: [
            p
            for p in probe_names
            if get_probe(p).family == family and get_probe(p).label_change == change and paper in get_probe(p).datasets
        ]
        for change, column in POOLED_COLUMNS.items()
    }


def module_path(name: str) -> str:
    """The source file of a probe, relative to the package, so a rule can list it as input."""
    module_name = REGISTRY[name].split(":")[0]
    return module_name.removeprefix("tabprobe.").replace(".", "/") + ".py"


def source_files(name: str) -> list[str]:
    """The probe's module and the library modules it imports, transitively, relative to the
    package: listed as inputs of the probe's jobs, an edit to a helper such as
    hypothesis_edits/dates.py re-runs exactly the probes that use it."""
    from tabprobe.code_inputs import closure

    return closure([module_path(name)])


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
    "pooled_members",
    "register_external",
    "register_externals",
    "source_files",
    "Example",
    "NotApplicable",
    "Probe",
    "ProbeContext",
    "ProbeExample",
]
