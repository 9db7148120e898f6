import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_snakemake_lint_is_clean(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
         "--configfile", str(ROOT / "config.yaml")],
        capture_output=True, text=True, timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Congratulations, your workflow is in a good condition!" in output
    assert "Lints for" not in output


def test_every_rule_has_a_log():
    for smk in (ROOT / "rules").glob("*.smk"):
        text = smk.read_text()
        rules = text.count("\nrule ") + text.startswith("rule ")
        assert text.count("    log:") == rules, f"{smk.name}: a rule without log:"
