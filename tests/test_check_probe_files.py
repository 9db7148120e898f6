"""bench/check_probe_files.py, the check of a finished run's probe files from disk: silent on what
generation wrote, loud on a file changed after it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from test_cli import ingest  # the mini fixture's alpha1, as the workflow's ingest_infotabs writes it

from tabprobe import stages
from tabprobe.data.infobox import table as infobox
from tabprobe.io import read_parquet, write_parquet

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "bench" / "check_probe_files.py"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """results/ of the mini fixture's alpha1 with two probes generated as the workflow does."""
    results = tmp_path_factory.mktemp("run") / "results"
    data = results / "data"
    ingest(results)
    for probe in ("row_deletion", "original"):
        folder = results / "probes" / probe
        stages.generate_probe(
            probe,
            "alpha1",
            str(data / "alpha1.parquet"),
            str(data / "alpha1.tables.parquet"),
            str(folder / "alpha1.parquet"),
            str(folder / "alpha1.coverage.json"),
            seed=7,
        )
    return results


def check(results: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), str(results)], capture_output=True, text=True, timeout=300)


def test_what_generation_wrote_keeps_every_promise(results):
    done = check(results)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 probe files" in done.stdout and "0 violations" in done.stdout.splitlines()[-1]


def test_a_file_changed_after_generation_is_named_with_its_uid(results, tmp_path):
    changed = tmp_path / "results"
    shutil.copytree(results, changed)
    path = changed / "probes" / "row_deletion" / "alpha1.parquet"
    rows = read_parquet(path, infobox.PROBE_EXAMPLES).to_pylist()
    tables = {
        t["table_id"]: t for t in read_parquet(changed / "data" / "alpha1.tables.parquet", infobox.TABLES).to_pylist()
    }
    # The first example's table put back as it was: a row deletion that deletes nothing.
    original_table = tables[rows[0]["table_id"]]
    rows[0]["table"] = {name: original_table[name] for name in infobox.TABLE.names}
    rows[1]["uid"] = rows[2]["uid"]
    write_parquet(pa.Table.from_pylist(rows, schema=infobox.PROBE_EXAMPLES), path, infobox.PROBE_EXAMPLES)
    done = check(changed)
    assert done.returncode == 1
    assert f"row_deletion/alpha1 {rows[0]['uid']}: breaks" in done.stdout
    assert f"row_deletion/alpha1 {rows[2]['uid']}: uid written 2 times" in done.stdout
