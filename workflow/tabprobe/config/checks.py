"""Config checks with messages that name the key, before any job runs."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tabprobe.config.errors import ConfigError
from tabprobe.config.locations import duplicate_keys, locate, located
from tabprobe.config.names import NAME_RULES
from tabprobe.config.problems import semantic_problems
from tabprobe.config.schema_words import kind_of
from tabprobe.errors import closest, did_you_mean
from tabprobe.probes import REGISTRY

_TYPE_HINT = (
    "; on the command line write it as in config.yaml: `--config key=true` or `false`, "
    "`null`, a number, or a quoted string"
)


def _type_hint(error: jsonschema.ValidationError) -> str:
    """How to write a value of the expected type, for a value that came as text (often from
    `--config`, where a list or a block needs YAML's brackets, quoted for the shell)."""
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    key = ".".join(str(p) for p in error.absolute_path) or "key"
    if "array" in expected:
        return f"; write a list in brackets, in a file `{key}: [{error.instance}]`, on the command line `--config '{key}=[{error.instance}]'`"
    if "object" in expected:
        return f"; write a block of keys, in a file indented under `{key}:`, on the command line `--config '{key}={{name: value}}'`"
    return _TYPE_HINT


def _key_path(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "(top level)"


# Keys an earlier version took, and what to write now (a closest spelling would mislead).
RENAMED_KEYS = {
    "controlled_variance.train_examples": "now `train_sizes`, a list: `train_sizes: [300]` for one size",
}


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        hints = []
        for key in unknown:
            renamed = RENAMED_KEYS.get(".".join([*(str(p) for p in error.absolute_path), key]))
            match = closest(key, allowed)
            if renamed:
                hints.append(f"{key!r} ({renamed})")
            else:
                hints.append(f"{key!r}" + (f" (did you mean {match!r}?)" if match else ""))
        return f"unknown key(s) {', '.join(hints)}; allowed keys here: {', '.join(allowed)}"
    if error.validator == "pattern" and "propertyNames" in error.schema_path:
        # The names are folder names (results/<kind>/<name>/...); say so rather than show a regex.
        rule = NAME_RULES.get(str(error.absolute_path[-1]) if error.absolute_path else "", "")
        return f"{error.instance!r} is not a valid name: {rule or error.message}; rename it"
    if error.validator == "enum" and isinstance(error.instance, str):
        choices = [c for c in error.validator_value if isinstance(c, str)]
        hint = did_you_mean(error.instance, choices)
        return error.message + ("." + hint if hint else "")
    if error.validator == "type" and isinstance(error.instance, str):
        return error.message + _type_hint(error)
    if error.validator == "oneOf":
        # Alternatives (a number, null or a word): name what the value may be, not "any of the given schemas".
        words = [o["const"] for o in error.validator_value if isinstance(o.get("const"), str)]
        hint = did_you_mean(error.instance, words) if isinstance(error.instance, str) else ""
        return f"{error.instance!r} is none of {kind_of(error.schema)}" + ("." + hint if hint else "")
    return error.message


def _error_path(error: jsonschema.ValidationError) -> list:
    """Where in the config the bad thing is: for an unknown or badly named key, the key itself."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return path + unknown[:1]
    if error.validator == "pattern" and "propertyNames" in error.schema_path:
        return path + [error.instance]
    return path


def _refused_paths(error: jsonschema.ValidationError) -> list[list]:
    """The key paths of the values an error refuses: each unknown key, a badly named one, or the
    value at the error's path (none for a missing key, or a problem of the whole config)."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        return [path + [key] for key in sorted(set(error.instance) - set(error.schema.get("properties", {})))]
    if error.validator == "pattern" and "propertyNames" in error.schema_path:
        return [path + [error.instance]]
    return [path] if path and error.validator != "required" else []


def _without_refused(config: dict[str, Any], errors: Sequence[jsonschema.ValidationError]) -> dict[str, Any]:
    """A copy of `config` without the values the schema refused (a list loses the refused items)."""
    pruned = copy.deepcopy(config)
    paths = [path for error in errors for path in _refused_paths(error)]
    # The deepest first, and a list's later items before its earlier ones, so each path still
    # names what it named in `config` when its turn comes.
    for path in sorted(paths, key=lambda p: (len(p), *(k if isinstance(k, int) else -1 for k in p)), reverse=True):
        parent = pruned
        for key in path[:-1]:
            try:
                parent = parent[key]
            except (KeyError, IndexError, TypeError):
                parent = None
                break
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif isinstance(parent, list) and isinstance(path[-1], int) and path[-1] < len(parent):
            del parent[path[-1]]
    return pruned


def check(
    config: dict[str, Any],
    schema_path: str | Path,
    sources: Sequence[str | Path] = (),
    schema_shown: str | None = None,
    overrides: dict | None = None,
) -> None:
    """Raise ConfigError listing every problem, each with its dotted key path and, where a file of
    `sources` (the config files, in the order Snakemake merged them) sets that key, file:line."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    found = []
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        where = locate(_error_path(e), sources, overrides)
        found.append(f"{where + ': ' if where else ''}config key {_key_path(e)}: {_describe(e)}")
    if found:
        # The checks below read the config as the schema types it. A value the schema refused is
        # taken out first, or they would read it as if it were right (the word `alpha1` as the
        # splits a, l, p, h, a, 1) and add messages about what it would mean; without it they may
        # fail in ways that hide the real message, so what they find is only added.
        try:
            problems = semantic_problems(_without_refused(config, errors))
        except (TypeError, AttributeError, KeyError, ValueError):
            problems = []
    else:
        problems = semantic_problems(config)
    duplicates = [problem for source in sources for problem in duplicate_keys(source)]
    problems = duplicates + found + [located(p, sources, overrides) for p in problems]
    if problems:
        read = [*map(str, sources), *(["--config"] if overrides else [])]
        read_from = f" (read from {', then '.join(read)})" if read else ""
        raise ConfigError(
            f"the config is not valid{read_from}:\n  "
            + "\n  ".join(problems)
            + f"\n(schema: {schema_shown or schema_path})"
        )


def require_configured(config: dict[str, Any], **names: str) -> None:
    """Raise ConfigError when a requested path names a model or probe that config does not
    list (model="...", probe="..."), with the closest configured name. The rules' model and
    probe wildcards accept any well-formed name, so that a typo in a target reaches this message
    rather than Snakemake's bare "No rule to produce"."""
    for kind, name in names.items():
        configured = list(config.get(f"{kind}s") or {})
        if name not in configured:
            hint = did_you_mean(name, configured)
            if not hint and kind == "probe" and (registered := closest(name, REGISTRY)):
                hint = f" Did you mean {registered!r}? It is a registered probe: list it under `probes:` to run it."
            raise ConfigError(
                f"no {kind} {name!r} in config.{hint} Configured {kind}s: "
                f"{', '.join(configured)}. Fix the name in the requested path, or add it under `{kind}s:` in config.yaml."
            )
