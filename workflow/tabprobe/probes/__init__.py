"""The probe registry: one line per probe, imported lazily.

To add a probe: write `tabprobe/probes/<name>.py` defining `PROBE = Probe(...)`, add one line
below, and list the name under `probes:` in config.yaml. The contract test picks it up.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

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


# Paper Table 4's columns, by the Probe.label_change of the hypothesis probes pooled into each.
TABLE4_COLUMNS = {"preserved": "label_preserved", "flipped": "label_flipped"}


def table4_members(probe_names: list[str]) -> dict[str, list[str]]:
    """Each Table 4 column and the probes (of `probe_names`, in that order) pooled into it."""
    return {column: [p for p in probe_names if get_probe(p).label_change == change]
            for change, column in TABLE4_COLUMNS.items()}


def module_path(name: str) -> str:
    """The source file of a probe, relative to the package, so a rule can list it as input."""
    module_name = REGISTRY[name].split(":")[0]
    return module_name.removeprefix("tabprobe.").replace(".", "/") + ".py"


def source_files(name: str) -> list[str]:
    """The probe's module and the package modules it imports (relative imports, followed
    transitively; read with ast, nothing imported), relative to the package: listed as inputs
    of the probe's jobs, an edit to a helper such as hypothesis_edits.py re-runs exactly the
    probes that use it."""
    package = Path(__file__).resolve().parent.parent
    seen: set[str] = set()
    pending = [module_path(name)]
    while pending:
        path = pending.pop()
        if path in seen or not (package / path).is_file():
            continue
        seen.add(path)
        parts = path.removesuffix(".py").split("/")
        for node in ast.walk(ast.parse((package / path).read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = parts[: len(parts) - node.level]  # the package the dots point at
                targets = [node.module] if node.module else [alias.name for alias in node.names]
                for target in targets:
                    module = "/".join([*base, *target.split(".")])
                    pending += [module + ".py", module + "/__init__.py"]
    return sorted(seen)


__all__ = ["REGISTRY", "TABLE4_COLUMNS", "get_probe", "module_path", "source_files", "table4_members", "Example", "NotApplicable", "Probe", "ProbeContext", "ProbeExample"]
