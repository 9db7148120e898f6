"""The workflow copied into a test's folder, so a test can edit probe modules, profiles and
configs there, and run Snakemake on it, without touching the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_workflow(dest: Path) -> Path:
    """Snakefile, rules/, envs/ and workflow/ (library, scripts, schemas, profiles) into `dest`.

    No config.yaml: Snakemake would merge a test's --configfile into it, and the probes and
    models maps would then hold the default entries too. workflow/scripts/tabprobe stays a
    relative link, so the jobs import the copy's library."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    for name in ["rules", "envs", "workflow"]:
        shutil.copytree(ROOT / name, dest / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return dest
