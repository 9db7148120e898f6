"""The config a run was planned with, handed to its cluster jobs as a file.

A job on a cluster is a Snakemake of its own that parses the workflow again, from the same files
and `--config` but not every flag: `--replace-workflow-config` does not reach it, so there each job
would merge the user's config file into config.yaml (probes and models add up) and compute with
a config other than the one planned, or fail its config check. The planner writes the config it
checked (defaults filled in) to `.snakemake/tabprobe/planned-config-<digest>.yaml` and names it in
the environment, which sbatch hands to the job (the Slurm plugin submits with --export=ALL); a job
that finds it computes with exactly that config.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import yaml

from tabprobe.config.errors import ConfigError
from tabprobe.io import write_text

VARIABLE = "TABPROBE_PLANNED_CONFIG"
FOLDER = Path(".snakemake") / "tabprobe"


def hand_to_jobs(config: dict[str, Any], folder: str | Path = FOLDER) -> Path:
    """Write the planner's config (YAML keeps its keys' types and order) and name it in this
    process's environment, which the jobs it submits inherit."""
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    path = Path(folder).resolve() / f"planned-config-{hashlib.sha256(text.encode()).hexdigest()[:16]}.yaml"
    if not path.is_file():
        write_text(text, path)
    os.environ[VARIABLE] = str(path)
    return path


def adopt_planned(config: dict[str, Any]) -> Path | None:
    """In a job: replace `config`, in place, by the planner's (None, and `config` untouched, where
    the environment names none: a run without cluster jobs, or an executor that does not pass the
    environment on)."""
    named = os.environ.get(VARIABLE)
    if not named:
        return None
    try:
        planned = yaml.safe_load(Path(named).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise ConfigError(
            f"{named}: the config this run was planned with cannot be read in this job ({err}); the jobs need the "
            "working folder on a filesystem the cluster's nodes share with the login node"
        ) from None
    config.clear()
    config.update(planned)
    return Path(named)
