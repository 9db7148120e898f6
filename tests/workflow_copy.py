"""The workflow copied into a test's folder, so a test can edit probe modules, profiles and
configs there, and run Snakemake on it, without touching the repository."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_workflow(dest: Path) -> Path:
    """Snakefile, rules/, envs/ and workflow/ (library, scripts, schemas, profiles) into `dest`.

    No config.yaml: Snakemake would merge a test's --configfile into it, and the probes and
    models maps would then hold the default entries too. The jobs import the copy's library
    (rules/common.smk names its folder in PYTHONPATH)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    for name in ["rules", "envs", "workflow"]:
        shutil.copytree(ROOT / name, dest / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def snakemake_command(workflow: Path, configfile: Path | None, *args: str, workdir: Path | None = None) -> list[str]:
    """`python -m snakemake` on the workflow copy in `workflow`, run in `workdir` (default: the
    copy itself), with `configfile` as the whole config. The --configfile option takes several
    files, so it goes before `args`: a target there would be read as one more config file."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(workflow / "Snakefile"),
        "--directory",
        str(workdir or workflow),
        *(["--configfile", str(configfile)] if configfile else []),
        *args,
    ]


# What an end-to-end test on a slice of the data shares: one split, no inoculation or controlled
# variance, and few samplings (the protocol's numbers are not what these tests check); a minimum n
# of 1, so that the report reads the few examples of each probe as it reads a full run's.
SLICE = {
    "seed": 2022,
    "splits": ["alpha1"],
    "min_examples": 1,
    "inoculation": None,
    "controlled_variance": None,
    "scoring": {"samplings": 20, "fraction": 0.8, "bootstrap": 50, "confidence": 0.95},
}


def slice_config(workdir: Path, name: str, **config) -> Path:
    """SLICE with `config` over it, written to <workdir>/<name>.yaml: the whole config of a test's run."""
    import yaml

    configfile = workdir / f"{name}.yaml"
    configfile.write_text(yaml.safe_dump({**SLICE, **config}, sort_keys=False))
    return configfile
