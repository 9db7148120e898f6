"""The probe registry: one line per probe, imported lazily.

To add a probe: write `tabprobe/probes/<name>.py` defining `PROBE = Probe(...)`, add one line
below, and list the name under `probes:` in config.yaml. The contract test picks it up.
"""

from __future__ import annotations

import importlib
from functools import cache

from ..errors import did_you_mean
from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample

REGISTRY: dict[str, str] = {
    "original": "tabprobe.probes.original:PROBE",
    "row_deletion": "tabprobe.probes.row_deletion:PROBE",
    "row_insertion": "tabprobe.probes.row_insertion:PROBE",
    "row_update": "tabprobe.probes.row_update:PROBE",
    "row_permutation": "tabprobe.probes.row_permutation:PROBE",
    "row_deletion_insertion": "tabprobe.probes.row_deletion_insertion:PROBE",
    "entity_flip": "tabprobe.probes.entity_flip:PROBE",
    "number_preserve": "tabprobe.probes.number_preserve:PROBE",
    "number_flip": "tabprobe.probes.number_flip:PROBE",
    "temporal_preserve": "tabprobe.probes.temporal_preserve:PROBE",
    "temporal_flip": "tabprobe.probes.temporal_flip:PROBE",
    "negation_flip": "tabprobe.probes.negation_flip:PROBE",
    "modifier_preserve": "tabprobe.probes.modifier_preserve:PROBE",
    "quantifier_flip": "tabprobe.probes.quantifier_flip:PROBE",
    "hypothesis_only": "tabprobe.probes.hypothesis_only:PROBE",
    "dummy_premise": "tabprobe.probes.dummy_premise:PROBE",
    "swapped_table": "tabprobe.probes.swapped_table:PROBE",
    "num_words": "tabprobe.probes.num_words:PROBE",
    "num_decimal": "tabprobe.probes.num_decimal:PROBE",
    "num_verbosity": "tabprobe.probes.num_verbosity:PROBE",
    "num_distractor_rows": "tabprobe.probes.num_distractor_rows:PROBE",
    "num_comparative": "tabprobe.probes.num_comparative:PROBE",
}


@cache
def get_probe(name: str) -> Probe:
    try:
        target = REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown probe {name!r}.{did_you_mean(name, REGISTRY)} Registered probes: {', '.join(sorted(REGISTRY))}") from None
    module_name, attr = target.split(":")
    probe = getattr(importlib.import_module(module_name), attr)
    if probe.name != name:
        raise ValueError(f"registry line {name!r} points at a probe named {probe.name!r}")
    return probe


def module_path(name: str) -> str:
    """The source file of a probe, relative to the package, so a rule can list it as input."""
    module_name = REGISTRY[name].split(":")[0]
    return module_name.removeprefix("tabprobe.").replace(".", "/") + ".py"


__all__ = ["REGISTRY", "get_probe", "module_path", "Example", "NotApplicable", "Probe", "ProbeContext", "ProbeExample"]
