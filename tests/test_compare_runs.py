"""bench/compare_runs.py, issue 34's check that a redesign leaves a run's outputs byte-identical:
it must see through what only says when and how fast a job ran, and nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "compare_runs.py"


def write_run(root: Path, seconds: float, label: str, report_seconds: int) -> Path:
    results = root / "results"
    (results / "predictions" / "m" / "original").mkdir(parents=True)
    (results / "report").mkdir(parents=True)
    stats = {"examples": 3, "seconds": seconds, "examples_per_second": 3 / seconds, "meta": {"train_seconds": seconds}}
    (results / "predictions" / "m" / "original" / "alpha1.json").write_text(json.dumps(stats))
    (results / "predictions" / "m" / "original" / "alpha1.parquet").write_bytes(label.encode())
    (results / "report" / "report.md").write_text(
        f"| m | para | 6000 examples, max_length 128, {report_seconds} s | 50.67 |\n"
    )
    return root


def compare(before: Path, after: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(before), str(after)], capture_output=True, text=True)


def test_runs_that_differ_only_in_timings_are_identical(tmp_path):
    result = compare(write_run(tmp_path / "a", 1.5, "E N C", 355), write_run(tmp_path / "b", 2.5, "E N C", 374))
    assert result.returncode == 0, result.stdout
    assert "3 identical, 0 differing or missing" in result.stdout


def test_a_changed_prediction_or_a_missing_file_is_named(tmp_path):
    before = write_run(tmp_path / "a", 1.5, "E N C", 355)
    after = write_run(tmp_path / "b", 1.5, "E N N", 355)
    (after / "results" / "report" / "report.md").unlink()
    result = compare(before, after)
    assert result.returncode == 1
    assert "predictions/m/original/alpha1.parquet: differs" in result.stdout
    assert "report/report.md: only in before" in result.stdout
