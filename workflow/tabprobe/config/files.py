"""Config as Snakemake builds it: YAML files merged in order, and `--config` values typed as
config.yaml would spell them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from tabprobe.config.errors import ConfigError


class NotYaml(ConfigError):
    """A config file whose text is not YAML, or not UTF-8; `cause` is the parser's or the decoder's
    error, for callers that word it their own way."""

    def __init__(self, message: str, cause: Exception):
        super().__init__(message)
        self.cause = cause


def read_yaml(path: str | Path) -> Any:
    """The YAML document of config file `path` (None for an empty file), read as Snakemake reads
    it: UTF-8, safe_load. Raises NotYaml naming the file, line and column of a syntax error. A file
    that cannot be opened raises its OSError: one caller reports it, another lets it through."""
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        opened = err.context_mark if err.context and err.problem else None
        context = f" ({err.context} opened at line {opened.line + 1}, column {opened.column + 1})" if opened else ""
        raise NotYaml(
            f"{where}: not valid YAML: {err.problem or err.context}{context}; fix the syntax there "
            "(a bracket or quote left open, a tab in the indentation)",
            err,
        ) from None
    except (UnicodeDecodeError, yaml.YAMLError) as err:
        raise NotYaml(f"{path}: cannot be read as YAML ({err})", err) from None


def load_files(paths: Sequence[str | Path]) -> dict[str, Any]:
    """The config that Snakemake builds from these files (later ones override earlier ones,
    key by key), or ConfigError naming the file, line and column of a YAML syntax error."""
    from snakemake.utils import update_config

    merged: dict[str, Any] = {}
    for path in paths:
        try:
            loaded = read_yaml(path)
        except OSError as err:
            raise ConfigError(f"{path}: cannot be read as YAML ({err})") from None
        if not isinstance(loaded, dict):
            raise ConfigError(
                f"{path}: the top level must be keys (seed:, splits:, probes:, ...), found {type(loaded).__name__}"
            )
        update_config(merged, loaded)  # Snakemake's own merge
    return merged


def type_command_line_values(config: dict[str, Any], overrides: Mapping[str, Any] | None) -> None:
    """Read the strings Snakemake hands over from `--config` as YAML reads them in config.yaml.

    Snakemake types `--config` values as int, float, `True`/`False`, else strings (nested values
    all strings), so `full=true`, `counterfactuals_verify=false` and `max_examples=null` (the documented
    spellings) would arrive as "true", "false" and "null". Each such leaf of `config` that the
    command line set is replaced, in place, by its YAML value where that is a boolean, null or
    a number; any other string stays a string."""

    def typed(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: typed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [typed(item) for item in value]
        if isinstance(value, str):
            try:
                loaded = yaml.safe_load(value)
            except yaml.YAMLError:
                return value
            if loaded is None or isinstance(loaded, (bool, int, float)):
                return loaded
        return value

    def apply(target: dict, given: Mapping[str, Any]) -> None:
        for key, value in given.items():
            if key not in target:
                continue
            if isinstance(value, dict) and isinstance(target[key], dict):
                apply(target[key], value)
            else:
                target[key] = typed(target[key])

    apply(config, overrides or {})
