"""tabprobe used as a Snakemake module (docs/module.md): a folder of the user's own with
their config and results, a Snakefile that names this checkout, and nothing copied from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini_infotabs"


def module_snakefile(checkout: Path) -> str:
    """The Snakefile docs/module.md shows, with the checkout's path filled in."""
    page = (ROOT / "docs" / "module.md").read_text()
    shown = re.search(r"^```\n(configfile: .*?)^```", page, re.M | re.S)
    assert shown and '"/path/to/tabprobe/Snakefile"' in shown.group(1), "docs/module.md no longer shows the Snakefile"
    return shown.group(1).replace("/path/to/tabprobe", str(checkout))


def test_a_workflow_of_ones_own_runs_tabprobe_as_a_module(tmp_path):
    user = tmp_path / "my-analysis"
    (user / "config").mkdir(parents=True)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config.update(infotabs_dir=str(MINI), infotabs_verify=False)
    (user / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    (user / "Snakefile").write_text(module_snakefile(ROOT))

    def snakemake(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "snakemake", "--cores", "1", *args],
            cwd=user,
            capture_output=True,
            text=True,
            timeout=600,
        )

    plan = snakemake("-n")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    for rule in ("ingest_infotabs", "generate_probe", "infer_nli", "score_probe", "assemble_report"):
        assert rule in plan.stdout, plan.stdout
    # A real job: its script, its code inputs and the library resolve in the checkout, its
    # outputs and log land in the user's folder, and the log names the checkout's library.
    ran = snakemake("results/data/alpha1.parquet")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (user / "results" / "data" / "alpha1.parquet").is_file()
    log = (user / "logs" / "ingest_infotabs" / "alpha1.log").read_text()
    assert f"from {ROOT / 'workflow' / 'tabprobe'}" in log.splitlines()[0]
