"""A job's log: everything goes to the file; what the person at the terminal must see reaches it too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_duplicate_hypotheses_are_reported_on_the_terminal_and_in_the_log(tmp_path, bad_copy):
    """check_infotabs's warning about kept duplicates reaches the terminal (a job's stderr, which
    Snakemake shows), not only its log file; ordinary log lines stay in the file."""
    root = bad_copy()
    tsv = root / "data" / "maindata" / "infotabs_train.tsv"
    lines = tsv.read_text(encoding="utf-8").split("\n")
    lines[6] = lines[1]  # line 7 repeats line 2
    tsv.write_text("\n".join(lines), encoding="utf-8")
    log = tmp_path / "check.log"
    script = (
        "from tabprobe import logs, stages\n"
        f"logs.to_file({str(log)!r})\n"
        f"stages.check_dataset('infotabs', {{'infotabs_dir': {str(root)!r}}}, 'train', {str(tmp_path / 'checked.json')!r}, "
        "on_duplicate='warn', settings={'verify': False})\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT / "workflow"), "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert (
        f"tabprobe WARNING (full log: {log}): train: 1 duplicate hypotheses kept (`duplicates: warn`; `error` "
        "refuses them): line 7 repeats 2"
    ) in result.stderr
    assert "well formed" not in result.stderr  # an INFO line: the log file's only
    text = log.read_text()
    assert "well formed" in text and "1 duplicate hypotheses kept" in text
