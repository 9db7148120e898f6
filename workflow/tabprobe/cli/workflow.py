"""The workflow behind a command: the repository root, the outputs a command reads, and
Snakemake, run to build exactly the ones that are missing."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from tabprobe.cli.errors import CommandFailed, UsageError
from tabprobe.errors import did_you_mean
from tabprobe.probes import Probe


def probe_split(probe: Probe, split: str | None) -> str:
    """The split a command applies `probe` to: the one given, which must be a split of the probe's
    dataset, else the first of the splits its dataset's report shows (alpha1 for the
    paper's) that the probe may run on (a program probe's: the split that has the programs)."""
    from tabprobe.data.datasets import get_dataset
    from tabprobe.probes import needs

    dataset = get_dataset(probe.datasets[0])
    if split is None:
        allowed = needs.splits_of(probe) or dataset.splits
        return next(s for s in (*dataset.report.showcase_order, *dataset.splits) if s in allowed)
    if split not in dataset.splits:
        raise UsageError(
            f"no split {split!r} of {dataset.title} ({probe.name}'s dataset).{did_you_mean(split, dataset.splits)} "
            f"Splits: {', '.join(dataset.splits)}"
        )
    return split


def probe_inputs(
    probe: Probe,
    split: str,
    results: Path,
    seed: int,
    limit: int | None,
    config_path: Path | None,
    configfile: str | None,
    config: dict,
):
    """The ingested split and the files of the probe's needs (its parse, relevance, a dataset's
    own: probes/needs.py), built with Snakemake first where missing: what generate_probe reads."""
    from tabprobe.data.datasets import get_dataset
    from tabprobe.probes import needs
    from tabprobe.probes.generation import read_probe_inputs

    dataset = get_dataset(probe.datasets[0])
    paths = {"examples": Path(dataset.examples(split, results)), "tables": Path(dataset.tables(split, results))}
    need_files = needs.files(probe, split, config, str(results))
    missing = [
        path
        for path in [*paths.values(), *(Path(f) for files in need_files.values() for f in files)]
        if not path.exists()
    ]
    if missing:
        build_with_snakemake(missing, results, config_path, explicit_config=configfile is not None)
    return read_probe_inputs(
        probe.name,
        split,
        str(paths["examples"]),
        str(paths["tables"]),
        seed,
        limit,
        need_files,
        needs.settings(probe, config),
    )


def require_outputs(results: Path, paths) -> None:
    """Stop with the snakemake targets to build when any of the workflow's outputs is missing."""
    missing = [path for path in paths if not path.exists()]
    if missing:
        targets = " ".join(shlex.quote(_target(path, results)) for path in missing)
        raise CommandFailed(
            f"{', '.join(map(str, missing))} not found. Build with: snakemake --cores all {targets}\n"
            "(run in the folder holding results/; the model and probe must be listed in config.yaml)"
        )


def _target(path: Path, results: Path) -> str:
    """A results file as Snakemake names it: relative to the folder holding results/."""
    try:
        return str(Path("results") / path.resolve().relative_to(results.resolve()))
    except ValueError:
        return str(path)


def find_root(start: Path) -> Path | None:
    """The repository root: `start` or the nearest folder above it holding Snakefile and workflow/tabprobe."""
    for folder in [start.resolve(), *start.resolve().parents]:
        if is_root(folder):
            return folder
    return None


def is_root(folder: Path) -> bool:
    return (folder / "Snakefile").is_file() and (folder / "workflow" / "tabprobe" / "probes" / "__init__.py").is_file()


def build_with_snakemake(missing: list[Path], results: Path, config_path: Path | None, explicit_config: bool) -> None:
    """Run Snakemake, in the folder holding the Snakefile, to build exactly the `missing` inputs."""
    package_root = Path(__file__).resolve().parents[3]  # workflow/tabprobe/cli/ -> the checkout holding this library
    root = find_root(Path.cwd()) or (package_root if is_root(package_root) else None)
    if root is None:
        raise CommandFailed(
            f"{', '.join(map(str, missing))} not found, and no Snakefile to build them with: run "
            "tabprobe inside the repository (the folder holding Snakefile)"
        )
    results = results.resolve()
    if results.name != "results":
        raise UsageError(
            f"{', '.join(map(str, missing))} not found, and Snakemake builds into a folder named "
            f"results/, which --results {results} is not: give the results/ folder of a workflow run"
        )
    workdir = results.parent
    targets = [_target(path, results) for path in missing]
    command = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile")]
    if workdir != root:
        command += ["--directory", str(workdir)]
    # --configfile takes several files, so it goes before the targets.
    if config_path is not None and (explicit_config or workdir != root):
        command += ["--configfile", str(config_path.resolve())]
    command += ["--cores", "all", *targets]
    print(
        f"tabprobe: {', '.join(targets)} not found in {workdir}; building them with Snakemake:\n"
        f"  (cd {shlex.quote(str(root))} && {shlex.join(command)})",
        file=sys.stderr,
        flush=True,
    )
    try:  # Snakemake's report goes to stderr, so that stdout holds only the examples shown
        log = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        log = None
    try:
        code = subprocess.call([*command], cwd=root, stdout=log)
    except OSError as error:
        raise CommandFailed(f"could not run Snakemake: {error}") from None
    if code != 0:
        raise CommandFailed(
            f"Snakemake failed (exit code {code}) building {', '.join(targets)}; its messages are "
            "above. Fix what they say (often config.yaml) and run tabprobe again."
        )
    still = [path for path in missing if not path.exists()]
    if still:
        raise CommandFailed(f"Snakemake finished but {', '.join(map(str, still))} is still missing")
