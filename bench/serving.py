"""Benchmark: one model's inference jobs, each loading the model itself (how every job ran before
tabprobe.models.serving) against the same jobs on one model server, side by side in one run.

    .venv/bin/python bench/serving.py --checkpoint /path/run/resources/models/minilm-struct \\
        --probes '/path/run/results/probes/*/alpha1.parquet' --premise para --max-length 128 --jobs 2

Every job is a process of its own, as Snakemake starts it, `--jobs` at a time (the cores of the
machine: each job computes on one thread). The served side starts from no server, so its one
model load is in the time. Reported: wall seconds of each side, their ratio, model loads, and
whether every prediction file is the same bytes on both sides.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LIBRARY = str(Path(__file__).resolve().parents[1] / "workflow")


def job_command(
    probe: str, checkpoint: str, out: Path, settings: dict, use_server: bool, server_log: Path
) -> list[str]:
    code = (
        "from tabprobe import logs, stages; "
        f"logs.to_file({str(out) + '.log'!r}); "
        f"stages.infer_nli({probe!r}, {checkpoint!r}, {str(out)!r}, {str(out) + '.json'!r}, threads=1, "
        f"server_log={str(server_log)!r}, use_server={use_server}, **{settings!r})"
    )
    return [sys.executable, "-c", code]


def run_side(probes: list[str], checkpoint: str, settings: dict, jobs: int, use_server: bool, folder: Path) -> dict:
    folder.mkdir(parents=True)
    server_log = folder / "server.log"
    env = dict(os.environ, TMPDIR=str(folder), PYTHONPATH=LIBRARY)  # a fresh server folder: no server yet

    def one(probe: str) -> None:
        name = Path(probe).parent.name
        out = folder / f"{name}.parquet"
        # In the side's folder, as Snakemake runs a job in its run's folder: a server touches only
        # shard folders of the run it serves (tabprobe.models.serving, Trust).
        subprocess.run(
            job_command(probe, checkpoint, out, settings, use_server, server_log), check=True, env=env, cwd=folder
        )

    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, probes))
    seconds = time.perf_counter() - started
    logs = [p.read_text() for p in folder.glob("*.parquet.log")] + (
        [server_log.read_text()] if server_log.exists() else []
    )
    loads = sum(len(re.findall(r"tabprobe.models.classifiers: loaded ", text)) for text in logs)
    return {"seconds": round(seconds, 1), "model_loads": loads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument(
        "--probes", required=True, help="a glob of probe example files (results/probes/*/<split>.parquet)"
    )
    parser.add_argument("--premise", default="para")
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--limit", type=int, default=None, help="only the first N probe files")
    args = parser.parse_args()
    probes = [str(Path(p).resolve()) for p in sorted(glob.glob(args.probes))[: args.limit]]
    args.checkpoint = str(Path(args.checkpoint).resolve())  # the jobs run in folders of their own
    settings = dict(
        premise=args.premise, max_length=args.max_length, batch_size=args.batch_size, precision=args.precision
    )
    with tempfile.TemporaryDirectory() as scratch:
        alone = run_side(probes, args.checkpoint, settings, args.jobs, False, Path(scratch) / "alone")
        served = run_side(probes, args.checkpoint, settings, args.jobs, True, Path(scratch) / "served")
        same = all(
            (Path(scratch) / "alone" / p.name).read_bytes() == p.read_bytes()
            for p in (Path(scratch) / "served").glob("*.parquet")
        )
    print(
        json.dumps(
            {
                "jobs": len(probes),
                "parallel": args.jobs,
                "each_job_loads_the_model": alone,
                "one_server": served,
                "speed_up": round(alone["seconds"] / served["seconds"], 2),
                "same_bytes": same,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
