"""The config a command reads (--configfile, else ./config.yaml), and the seed it takes from it."""

from __future__ import annotations

from pathlib import Path

from tabprobe.cli.errors import UsageError
from tabprobe.config import NotYaml, read_yaml, schema_default


def read_config(path: str | None) -> tuple[dict, Path | None]:
    """The config file as YAML, and its path; ({}, None) when the default ./config.yaml is absent."""
    config_path = Path(path or "config.yaml")
    if not config_path.is_file():
        if path is not None:
            raise UsageError(
                f"config file {path} not found; give an existing file with --configfile, or leave it out "
                f"to read ./config.yaml (seed {schema_default('seed')} and no probe options where there "
                "is none)"
            )
        return {}, None
    try:
        config = read_yaml(config_path) or {}
    except NotYaml as error:
        raise UsageError(f"{config_path} is not valid YAML: {error.cause}") from None
    if not isinstance(config, dict):
        raise UsageError(f"{config_path} is not a mapping of config keys (see config.yaml in the repository)")
    return config, config_path


def seed_of(config: dict, config_path: Path | None) -> int:
    """The config's seed; where it gives none (no config file), the schema's default, which
    tests/test_config.py holds equal to config.yaml's seed."""
    seed = config["seed"] if "seed" in config else schema_default("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UsageError(f"{config_path}: seed must be an integer, not {seed!r}")
    return seed
