"""Compare two runs' outputs byte for byte: every file under results/ of one run against the
same path in the other, grouped by stage folder (issue 34: a redesign must leave the default run's
probe files, predictions, scores and report byte-identical).

    .venv/bin/python bench/compare_runs.py /tmp/before /tmp/after

JSON files (the run record, each prediction's statistics) are compared without the fields that say
when, where and how fast a job ran (timings, the commit, hosts); the report without the training
seconds it prints beside each model. Everything else must be the same bytes. Exits 1 when a file
differs or is missing on one side.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

# Fields that say when, where and how fast a job ran, not what it computed.
CIRCUMSTANCES = {
    "started",
    "finished",
    "seconds",
    "wall_seconds",
    "train_seconds",
    "examples_per_second",
    "host",
    "hostname",
    "workdir",
    "timings",
    "commit",
}
# The report's model table: "..., max_length 128, 355 s |" (the training's wall time).
TRAINING_SECONDS = re.compile(rb"(max_length \d+), \d+ s\b")


def _without_circumstances(value):
    if isinstance(value, dict):
        return {k: _without_circumstances(v) for k, v in value.items() if k not in CIRCUMSTANCES}
    if isinstance(value, list):
        return [_without_circumstances(v) for v in value]
    return value


def same(a: Path, b: Path) -> bool:
    if a.suffix == ".json":
        return _without_circumstances(json.loads(a.read_text())) == _without_circumstances(json.loads(b.read_text()))
    if a.parent.name == "report":
        return TRAINING_SECONDS.sub(rb"\1", a.read_bytes()) == TRAINING_SECONDS.sub(rb"\1", b.read_bytes())
    return a.read_bytes() == b.read_bytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="a run's folder (holding results/)")
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    roots = [run / "results" for run in (args.before, args.after)]
    files = [{p.relative_to(root) for p in root.rglob("*") if p.is_file()} for root in roots]
    identical, differing = Counter(), []
    for path in sorted(files[0] | files[1]):
        stage = path.parts[0] if len(path.parts) > 1 else path.name
        if path not in files[0] or path not in files[1]:
            differing.append(f"{path}: only in {'after' if path not in files[0] else 'before'}")
        elif same(roots[0] / path, roots[1] / path):
            identical[stage] += 1
        else:
            differing.append(f"{path}: differs")
    for stage, count in sorted(identical.items()):
        print(f"{stage}: {count} files identical")
    for line in differing:
        print(line)
    print(f"{sum(identical.values())} identical, {len(differing)} differing or missing")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
