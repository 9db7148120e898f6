"""TabFact's probe files from the real data (bench/tabfact_probe_files.py, through the stage functions
the rules call) and their independent check (bench/check_tabfact_probe_files.py): silent on what the
probes wrote, loud on an expected label the edited table contradicts. Skipped without ../shared/tabfact."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from tabprobe.data.relational import table as relational
from tabprobe.io import read_parquet, write_parquet

ROOT = Path(__file__).resolve().parents[1]
TABFACT = ROOT.parent / "shared" / "tabfact"
pytestmark = pytest.mark.skipif(not TABFACT.is_dir(), reason="TabFact is not beside the checkout (../shared/tabfact)")


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tabfact") / "results"
    made = run("tabfact_probe_files.py", "--tabfact", str(TABFACT), "--out", str(out), "--limit", "80")
    assert made.returncode == 0, made.stderr
    return out


def test_every_tabfact_probe_writes_examples_and_the_check_finds_none_contradicted(results):
    summary = json.loads((results / "summary.json").read_text())["coverage"]
    assert all(entry["probe_examples"] > 0 for entry in summary.values()), summary
    assert {entry["split"] for name, entry in summary.items() if name.startswith("program_")} == {"bootstrap"}
    checked = run("check_tabfact_probe_files.py", str(results))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 fail" in checked.stdout
    probe_file = results / "probes" / "relevant_record_deletion" / "bootstrap.parquet"
    assert (
        read_parquet(probe_file, relational.RELATIONAL_PROBE_EXAMPLES).num_rows
        == summary["relevant_record_deletion"]["probe_examples"]
    )


def test_the_check_catches_an_expected_label_the_edited_table_contradicts(results, tmp_path):
    """Every program-executed example's expected label turned over: the check must say so for each."""
    copy = tmp_path / "results"
    subprocess.run(["cp", "-r", str(results), str(copy)], check=True)
    probe_file = copy / "probes" / "program_record_deletion" / "bootstrap.parquet"
    table = read_parquet(probe_file, relational.RELATIONAL_PROBE_EXAMPLES)
    flipped = pa.array([{"E": "C", "C": "E"}[e] for e in table["expected"].to_pylist()])
    changed = table.set_column(table.schema.get_field_index("expected"), "expected", flipped)
    write_parquet(changed, probe_file, relational.RELATIONAL_PROBE_EXAMPLES)
    checked = run("check_tabfact_probe_files.py", str(copy))
    assert checked.returncode == 1
    assert re.search(
        rf"program_record_deletion +{table.num_rows} checked, {table.num_rows} contradicted", checked.stdout
    )
