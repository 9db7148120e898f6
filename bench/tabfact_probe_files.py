"""TabFact's probe files from the real data, through the stage functions the workflow's rules call
(ingest_tabfact, generate_probe), into a folder laid out as a run's results/ (data in data/tabfact/): what the independent
check (bench/check_tabfact_probe_files.py) reads.

The program-executed probes run on the `bootstrap` split (the val/test statements that come with
a human-written program); the others on the first `--limit` statements of a seeded subset of val.

    PYTHONPATH=workflow .venv/bin/python bench/tabfact_probe_files.py --tabfact ../shared/tabfact \
        --out /tmp/tabfact-probes [--limit 300] [--seed 2022]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow"))

from tabprobe.data.tabfact.ingest import ingest_tabfact  # noqa: E402
from tabprobe.probes import get_probe, probes_for  # noqa: E402
from tabprobe.probes.generation import generate_probe  # noqa: E402

SPLITS = ("val", "bootstrap")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabfact", required=True, help="the TabFact copy (../shared/tabfact)")
    parser.add_argument("--out", required=True, help="a folder for results/data and results/probes")
    parser.add_argument("--limit", type=int, default=300, help="val statements per probe (a seeded subset)")
    parser.add_argument("--seed", type=int, default=2022)
    args = parser.parse_args()
    out = Path(args.out)
    data = out / "data" / "tabfact"  # where a run keeps TabFact's data (layout.examples)
    data.mkdir(parents=True, exist_ok=True)
    timings = {}
    for split in SPLITS:
        start = time.monotonic()
        ingest_tabfact(
            args.tabfact,
            split,
            str(data / f"{split}.parquet"),
            str(data / f"{split}.tables.parquet"),
            str(data / f"{split}.summary.json"),
            programs_out=str(data / f"{split}.programs.parquet"),
        )
        timings[f"ingest {split}"] = round(time.monotonic() - start, 2)
    coverage = {}
    for name in probes_for("tabfact"):
        split = "bootstrap" if "programs" in get_probe(name).needs else "val"
        folder = out / "probes" / name
        folder.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        generate_probe(
            name,
            split,
            str(data / f"{split}.parquet"),
            str(data / f"{split}.tables.parquet"),
            str(folder / f"{split}.parquet"),
            str(folder / f"{split}.coverage.json"),
            seed=args.seed,
            limit=None if split == "bootstrap" else args.limit,
            need_files={"programs": str(data / f"{split}.programs.parquet")},
        )
        timings[f"generate {name}"] = round(time.monotonic() - start, 2)
        found = json.loads((folder / f"{split}.coverage.json").read_text())
        coverage[name] = {"split": split, "gold": found["gold"], "probe_examples": found["probe_examples"]}
        print(f"{name:28} {split:10} {found['probe_examples']:5} of {found['gold']:5} gold examples")
    (out / "summary.json").write_text(json.dumps({"coverage": coverage, "seconds": timings}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
