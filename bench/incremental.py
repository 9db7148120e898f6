"""Benchmark: what a re-run costs once a run has finished (issue 7).

1. Dry run on a finished full run: every registered probe on every split, two models,
   `full: true` (about 740 jobs). Running that for real takes hours on a GPU node, and the time
   of `snakemake -n` depends on the DAG and on Snakemake's bookkeeping, not on what the files
   hold. So the full DAG is finished by the real Snakemake in a copy of the workflow whose
   scripts only create their outputs: every output exists, every job has its metadata record
   under .snakemake/ (what a dry run reads to look for changed params and code), as after a
   real run. Then `snakemake -n` is timed. Goal: under 10 s.
2. Re-run after adding one probe vs the full run: the real workflow (real training, probes,
   inference, scoring, report) on the default config without one probe (`--probe`, a table
   probe on three splits), from nothing; then that probe is added back to config and the re-run
   is timed; the ratio of the two wall times is the figure. The dry run on that real finished
   run is timed too. `--max-examples` and `--train-examples` shrink the run (every cap at most
   that many examples; that many training examples per model) for a quicker measurement.

    .venv/bin/python bench/incremental.py --infotabs ../shared/infotabs

Both parts run in copies of the workflow under --workdir (default bench/results/incremental).
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "tests"))  # the tests' workflow copy and Snakemake command, shared

from workflow_copy import copy_workflow, snakemake_command  # noqa: E402

from tabprobe.data.infotabs.reading import SPLITS  # noqa: E402
from tabprobe.probes import REGISTRY  # noqa: E402

# Creates the outputs of the job it stands for, nothing else (part 1 only).
OUTPUTS_ONLY_SCRIPT = """from pathlib import Path

for name in snakemake.output:
    path = Path(name)
    if path.suffix:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    else:  # a directory() output: a model folder
        path.mkdir(parents=True, exist_ok=True)
"""


def fresh_copy(dest: Path) -> Path:
    """The workflow copied into `dest`, replacing what an earlier benchmark left there."""
    if dest.exists():
        shutil.rmtree(dest)
    return copy_workflow(dest)


def snakemake(workdir: Path, configfile: Path, *args: str) -> tuple[float, str]:
    command = snakemake_command(workdir, configfile, *args)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return seconds, result.stdout + result.stderr


def count_jobs(dry_run_output: str) -> int:
    match = re.search(r"^total\s+(\d+)", dry_run_output, flags=re.M)
    return int(match.group(1)) if match else 0


def timed_dry_runs(workdir: Path, configfile: Path, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        seconds, out = snakemake(workdir, configfile, "--dry-run")
        if "Nothing to be done" not in out:
            raise SystemExit(f"the finished run still schedules jobs:\n{out[-3000:]}")
        times.append(seconds)
    return times


def default_config() -> dict:
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def full_dag(args) -> dict:
    """Part 1: dry run on a finished full run (all probes, all splits, two models, full: true)."""
    workdir = fresh_copy(Path(args.workdir) / "full-dag")
    for script in (workdir / "workflow" / "scripts").glob("*.py"):
        script.write_text(OUTPUTS_ONLY_SCRIPT)
    config = default_config()
    config.update(
        infotabs_dir=str(Path(args.infotabs).resolve()),
        full=True,
        splits=list(SPLITS),
        probes={name: {"splits": list(SPLITS)} for name in REGISTRY},
    )
    configfile = workdir / "full.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))

    _, plan = snakemake(workdir, configfile, "--dry-run")
    jobs = count_jobs(plan)
    print(f"part 1: finishing the full DAG ({jobs} jobs) with output-only scripts ...", flush=True)
    seconds, _ = snakemake(workdir, configfile, "--cores", str(args.cores))
    records = sum(1 for _ in (workdir / ".snakemake" / "metadata").iterdir())
    times = timed_dry_runs(workdir, configfile, args.repeats)
    print(f"part 1: dry run on the finished full run: {', '.join(f'{t:.2f}' for t in times)} s", flush=True)
    return {
        "jobs": jobs,
        "finish_seconds": round(seconds, 1),
        "metadata_records": records,
        "dry_run_seconds": [round(t, 2) for t in times],
        "dry_run_median_seconds": round(statistics.median(times), 2),
        "goal_seconds": 10,
    }


def reduced_config(args) -> dict:
    """The default config; with --max-examples, every cap lowered to it, and with
    --train-examples, training shortened."""
    config = default_config()
    config["infotabs_dir"] = str(Path(args.infotabs).resolve())
    if args.max_examples:
        config["max_examples"] = args.max_examples
        for settings in config["probes"].values():
            if settings and "max_examples" in settings:
                settings["max_examples"] = min(settings["max_examples"], args.max_examples)
    for model in config["models"].values():
        if "train" in model and args.train_examples:
            model["train"]["examples"] = args.train_examples
            dev = model["train"].get("dev_examples")
            model["train"]["dev_examples"] = min(dev or args.train_examples, args.train_examples)
    return config


def add_one_probe(args) -> dict:
    """Part 2: the real workflow from nothing without --probe, then with it."""
    workdir = fresh_copy(Path(args.workdir) / "add-probe")
    config = reduced_config(args)
    if args.probe not in config["probes"]:
        raise SystemExit(f"--probe {args.probe!r} is not in the default config")
    without = dict(config, probes={k: v for k, v in config["probes"].items() if k != args.probe})
    without_file, with_file = workdir / "without.yaml", workdir / "with.yaml"
    without_file.write_text(yaml.safe_dump(without, sort_keys=False))
    with_file.write_text(yaml.safe_dump(config, sort_keys=False))

    _, plan = snakemake(workdir, without_file, "--dry-run")
    full_jobs = count_jobs(plan)
    print(f"part 2: full run without {args.probe} ({full_jobs} jobs) ...", flush=True)
    full_seconds, _ = snakemake(workdir, without_file, "--cores", str(args.cores))
    _, plan = snakemake(workdir, with_file, "--dry-run")
    rerun_jobs = count_jobs(plan)
    print(f"part 2: full run {full_seconds:.0f} s; re-run with {args.probe} added ({rerun_jobs} jobs) ...", flush=True)
    rerun_seconds, _ = snakemake(workdir, with_file, "--cores", str(args.cores))
    times = timed_dry_runs(workdir, with_file, args.repeats)
    print(f"part 2: re-run {rerun_seconds:.0f} s; dry run on it: {', '.join(f'{t:.2f}' for t in times)} s", flush=True)
    return {
        "probe": args.probe,
        "max_examples": args.max_examples,
        "train_examples": args.train_examples,
        "full_run_jobs": full_jobs,
        "full_run_seconds": round(full_seconds, 1),
        "rerun_jobs": rerun_jobs,
        "rerun_seconds": round(rerun_seconds, 1),
        "rerun_over_full_run": round(rerun_seconds / full_seconds, 4),
        "dry_run_seconds": [round(t, 2) for t in times],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "results" / "incremental"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="dry runs timed in each part")
    parser.add_argument("--probe", default="row_permutation", help="the probe added in part 2")
    parser.add_argument(
        "--max-examples",
        type=int,
        default=None,
        help="part 2: lower every cap to this (default: the default config's caps)",
    )
    parser.add_argument(
        "--train-examples",
        type=int,
        default=None,
        help="part 2: train on this many examples per model (default: the default config's budget)",
    )
    parser.add_argument("--part", choices=["all", "dag", "add-probe"], default="all")
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    figures = {"machine": f"{platform.processor() or platform.machine()}, {platform.system()}"}
    if args.part in ("all", "dag"):
        figures["dry_run_on_full_dag"] = full_dag(args)
    if args.part in ("all", "add-probe"):
        figures["add_one_probe"] = add_one_probe(args)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
