"""Check a finished run's probe files from disk, apart from the job that wrote them.

Generation drops a perturbation that breaks one of its probe's promises before it is written
(tabprobe.probes.generation). This reads every `results/probes/<probe>/<split>.parquet` back, pairs each
example with its original (`results/data/<split>.parquet` and its tables) and asks every promise
again, plus what any probe file must hold: a known original, its gold label and table id, unique
uids, an expected label from the label set, and JSON provenance. A violation is printed with the
probe, split and uid; the exit status is 1 if there is any.

    .venv/bin/python bench/check_probe_files.py results
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow"))

from tabprobe import schemas  # noqa: E402
from tabprobe.data.infobox import table as infobox  # noqa: E402
from tabprobe.data.infobox.table import Table  # noqa: E402
from tabprobe.data.infotabs.reading import load_tables  # noqa: E402
from tabprobe.io import read_parquet  # noqa: E402
from tabprobe.probes import REGISTRY, Example, ProbeExample, get_probe, invariants  # noqa: E402

LABELS = {"E", "N", "C"}


def check_file(path: Path, data: Path) -> tuple[int, list[str]]:
    """(examples checked, violations) for one probe file."""
    probe_name, split = path.parent.name, path.stem
    examples = read_parquet(data / f"{split}.parquet", schemas.EXAMPLES).to_pylist()
    originals = {e["uid"]: e for e in examples}
    tables = load_tables(read_parquet(data / f"{split}.tables.parquet", infobox.TABLES))
    probe = get_probe(probe_name)
    promises = invariants.of(probe)
    rows = read_parquet(path, infobox.PROBE_EXAMPLES).to_pylist()
    problems = []

    def problem(uid: str, what: str) -> None:
        problems.append(f"{probe_name}/{split} {uid}: {what}")

    for uid, count in Counter(r["uid"] for r in rows).items():
        if count > 1:
            problem(uid, f"uid written {count} times")
    for row in rows:
        uid, original = row["uid"], originals.get(row["orig_uid"])
        if original is None:
            problem(uid, f"its original {row['orig_uid']} is not an example of {split}")
            continue
        if (row["label"], row["table_id"]) != (original["label"], original["table_id"]):
            problem(uid, "gold label or table id differs from its original's")
        if row["expected"] is not None and row["expected"] not in LABELS:
            problem(uid, f"expected label {row['expected']!r} is not one of {sorted(LABELS)}")
        try:
            provenance = json.loads(row["provenance"])
        except ValueError:
            problem(uid, "provenance is not JSON")
            continue
        table = tables.get(original["table_id"])
        if table is None:  # cf_human and external sets bring their own tables; nothing to compare
            continue
        example = Example(original["uid"], original["table_id"], original["hypothesis"], original["label"])
        out = ProbeExample(row["hypothesis"], Table.from_arrow(row["table"]), row["expected"], provenance)
        for name, detail in invariants.breaches(promises, example, table, out):
            problem(uid, f"breaks {name}: {detail}")
    return len(rows), problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a run's results/ folder")
    args = parser.parse_args()
    data = args.results / "data"
    files = sorted(p for p in (args.results / "probes").glob("*/*.parquet") if p.parent.name in REGISTRY)
    if not files:
        print(f"no probe files under {args.results / 'probes'}", file=sys.stderr)
        return 2
    total, violations = 0, []
    for path in files:
        checked, problems = check_file(path, data)
        total += checked
        violations += problems
        print(f"{path.parent.name}/{path.stem}: {checked} examples, {len(problems)} violations")
    for line in violations:
        print(line)
    print(f"{len(files)} probe files, {total} examples, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
