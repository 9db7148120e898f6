"""Config checks with messages that name the key, before any job runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .errors import TabprobeError, closest, did_you_mean
from .probes import REGISTRY, get_probe


class ConfigError(TabprobeError):
    pass


def _key_path(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "(top level)"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        hints = []
        for key in unknown:
            match = closest(key, allowed)
            hints.append(f"{key!r}" + (f" (did you mean {match!r}?)" if match else ""))
        return f"unknown key(s) {', '.join(hints)}; allowed keys here: {', '.join(allowed)}"
    return error.message


def check(config: dict[str, Any], schema_path: str | Path) -> None:
    """Raise ConfigError listing every problem, each with its dotted key path."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    problems = [
        f"config key {_key_path(e)}: {_describe(e)}"
        for e in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    ]
    for name in (config.get("probes") or {}) if isinstance(config.get("probes"), dict) else []:
        if name not in REGISTRY:
            problems.append(
                f"config key probes.{name}: no such probe.{did_you_mean(name, REGISTRY)} Registered: {', '.join(sorted(REGISTRY))}"
            )
    probes = config.get("probes") if isinstance(config.get("probes"), dict) else {}
    judged_by_transitions = [n for n in probes if n in REGISTRY and get_probe(n).judged_by == "transitions"]
    if judged_by_transitions and "original" not in probes:
        problems.append(
            f"config key probes: {', '.join(judged_by_transitions)} compare predictions with those on the "
            "unperturbed examples; add `original: {}` to probes"
        )
    models = config.get("models") if isinstance(config.get("models"), dict) else {}
    for name, model in models.items():
        if isinstance(model, dict) and sum(k in model for k in ("checkpoint", "train", "init")) != 1:
            problems.append(
                f"config key models.{name}: give exactly one of `checkpoint` (a directory you have), "
                "`train` (fine-tuned by the workflow) or `init` (untrained head, a plumbing baseline)"
            )
    if problems:
        raise ConfigError("config.yaml is not valid:\n  " + "\n  ".join(problems) + f"\n(schema: {schema_path})")
