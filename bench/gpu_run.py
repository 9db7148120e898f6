"""Benchmark: a whole run from nothing on one node, with model loads and device time counted.

Copies the workflow into a fresh folder and runs `snakemake --cores all` on the repository's
config.yaml with `full: true` (or whatever --config says), then reads what the run left:

- wall time, and job-seconds per rule (benchmarks/);
- model loads: every "loaded <checkpoint> on <device>" line in the model servers' logs and in
  the jobs' (the goal: one per model and allocation);
- inference time inside the loaded model (the `seconds` of each prediction's statistics) and
  training time (`train_seconds` of each checkpoint): the time the GPU had work, against the
  wall time around it.

On a GPU node (16 cores, 1 GPU; goal for the two default models: <= 10 minutes):

    python bench/gpu_run.py --infotabs ../shared/infotabs

On a CPU, a quick check of the default run (`full: false`) instead:

    .venv/bin/python bench/gpu_run.py --infotabs ../shared/infotabs --config full=false
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' workflow copy and Snakemake command, shared
from workflow_copy import copy_workflow, snakemake_command  # noqa: E402

LOADED = re.compile(r"loaded (\S+) on (\S+)")


def summarise(workdir: Path) -> dict:
    """Model loads, inference and training seconds, and job-seconds per rule of a finished run."""
    loads = {"model servers": collections.Counter(), "jobs": collections.Counter()}
    for log in sorted((workdir / "logs").rglob("*.log")):
        where = "model servers" if log.parent.name == "model_server" else "jobs"
        for checkpoint, _device in LOADED.findall(log.read_text(errors="replace")):
            path = Path(checkpoint)
            loads[where][str(path.relative_to(workdir) if path.is_relative_to(workdir) else path)] += 1
    inference_seconds, examples = 0.0, 0
    for stats in (workdir / "results" / "predictions").rglob("*.json"):
        record = json.loads(stats.read_text())
        inference_seconds += record.get("seconds", 0.0)
        examples += record.get("examples", 0)
    training_seconds = 0.0
    for meta in (workdir / "resources" / "models").rglob("tabprobe.json"):
        training_seconds += json.loads(meta.read_text()).get("train_seconds", 0.0) or 0.0
    job_seconds = collections.Counter()
    jobs = collections.Counter()
    for tsv in (workdir / "benchmarks").rglob("*.tsv"):
        rule = tsv.relative_to(workdir / "benchmarks").parts[0]
        lines = tsv.read_text().splitlines()
        if len(lines) >= 2:
            job_seconds[rule] += float(lines[1].split("\t")[0])
            jobs[rule] += 1
    return {
        "model_loads": {where: dict(sorted(counts.items())) for where, counts in loads.items()},
        "inference_seconds_in_model": round(inference_seconds, 1),
        "examples_inferred": examples,
        "training_seconds": round(training_seconds, 1),
        "jobs": dict(jobs.most_common()),
        "job_seconds": {rule: round(s, 1) for rule, s in job_seconds.most_common()},
    }


def verdict_headlines(workdir: Path) -> list[str]:
    """Each model's verdict headline and the answer to each question, as the report's Markdown
    states them ("headline", then "question: answer" lines)."""
    report = workdir / "results" / "report" / "report.md"
    if not report.exists():
        return []
    part = report.read_text().split("## Verdicts", 1)[-1].split("\n## ", 1)[0]
    found = []
    for line in part.splitlines():
        if re.fullmatch(r"\*\*[^*]+\*\*", line.strip()):
            found.append(line.strip().strip("*"))
        elif answer := re.match(r"- (Does it [^?]+\?) \*\*([^*]+)\*\*", line):
            found.append(f"  {answer.group(1)} {answer.group(2)}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--counterfactuals", default="../shared/infotabs-counterfactuals")
    parser.add_argument("--workdir", default="bench/results/gpu_run", help="emptied first")
    parser.add_argument("--cores", default="all")
    parser.add_argument("--config", nargs="*", default=["full=true"], help="extra --config values")
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    workdir = Path(args.workdir).resolve()
    shutil.rmtree(workdir, ignore_errors=True)
    copy_workflow(workdir)
    shutil.copy(ROOT / "config.yaml", workdir / "config.yaml")
    infotabs, counterfactuals = (str(Path(p).resolve()) for p in (args.infotabs, args.counterfactuals))
    command = snakemake_command(
        workdir,
        None,
        "--cores",
        args.cores,
        "--config",
        f"infotabs_dir={infotabs}",
        f"counterfactuals_dir={counterfactuals}",
        *args.config,
    )
    start, cpu_before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
    (workdir / "snakemake.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        sys.exit(f"the run failed after {wall:.0f} s; see {workdir / 'snakemake.log'}")
    figures = {
        "command": " ".join(command),
        "wall_seconds": round(wall, 1),
        # Every process of the run, Snakemake's own included (what the cores were busy with).
        "cpu_seconds": round(cpu, 1),
        "jobs_total": len(re.findall(r"^\[.*\]\n(?:local)?rule \w+:", result.stdout + result.stderr, flags=re.M)),
        **summarise(workdir),
        "verdicts": verdict_headlines(workdir),
    }
    busy = figures["inference_seconds_in_model"] + figures["training_seconds"]
    figures["model_busy_share_of_wall_pct"] = round(100 * busy / wall, 1)
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
