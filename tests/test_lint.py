import re
import subprocess
import sys
from pathlib import Path

from workflow_copy import snakemake_command

ROOT = Path(__file__).resolve().parents[1]


def test_snakemake_lint_is_clean(tmp_path):
    result = subprocess.run(
        snakemake_command(ROOT, ROOT / "config.yaml", "--lint", workdir=tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Congratulations, your workflow is in a good condition!" in output
    assert "Lints for" not in output


def run_tool(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing_and_the_python_code_is_formatted():
    """pyproject.toml [tool.ruff]: pyflakes, pycodestyle, import order, bugbear and pyupgrade, and
    the formatter (120 characters)."""
    checked = run_tool("ruff", "check", "workflow", "tests", "bench")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    formatted = run_tool("ruff", "format", "--check", "workflow", "tests", "bench")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_the_snakefiles_are_formatted_as_snakefmt_formats_them():
    formatted = run_tool("snakefmt", "--check", "Snakefile", "rules")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_every_rule_has_a_log():
    for smk in (ROOT / "rules").glob("*.smk"):
        text = smk.read_text()
        # `rule name:` at the margin, or `rule:` with a `name:` inside a loop (one rule per dataset).
        rules = len(re.findall(r"^ *(?:local)?rule(?: \w+)?:\s*$", text, re.M))
        assert len(re.findall(r"^ +log:", text, re.M)) == rules, f"{smk.name}: a rule without log:"
