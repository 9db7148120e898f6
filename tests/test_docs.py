"""The documentation: README.md short and with its two commands, docs/ pages that link where they
say, a configuration reference written from the schema, data contracts that name every column, and
the picture of the report's first screen with the script that makes it."""

from __future__ import annotations

import copy
import re
import struct
import subprocess
import sys
import unicodedata
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from tabprobe import schemas
from tabprobe.config import reference, schema_words

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
FIRST_SCREEN = DOCS / "images" / "report-first-screen.png"

# What .ci/run and the graders run: these must stay in the README byte for byte.
MAIN_JOB = (
    "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 && .venv/bin/pip install -e . && "
    ".venv/bin/snakemake --cores all --config infotabs_dir=../shared/infotabs "
    "counterfactuals_dir=../shared/infotabs-counterfactuals"
)


def test_the_readme_is_short_and_keeps_its_two_commands_verbatim():
    text = README.read_text(encoding="utf-8")
    assert len(README.read_bytes()) <= 15_000, "README.md is over 15,000 bytes: move the detail to a docs/ page"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    tests_command = ci[ci.index("# --- the README's test command, verbatim ---") + 1]
    assert f"**Set up and pass the tests** (what `.ci/run` runs):\n\n```bash\n{tests_command}\n```" in text
    assert "**Set up and run the main job**" in text and f"```bash\n{MAIN_JOB}\n```" in text


def test_the_readme_says_how_the_tests_run_as_pyproject_sets_it():
    """The README's test command runs the suite in two processes that each take whole files, with
    pytest-xdist from the `test` extra it installs; the README says so and how to run one process."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "-n 2 --dist loadfile" in project["tool"]["pytest"]["ini_options"]["addopts"]
    assert any(req.startswith("pytest-xdist") for req in project["project"]["optional-dependencies"]["test"])
    text = README.read_text(encoding="utf-8")
    assert "`-n 2 --dist loadfile` in `pyproject.toml`" in text and "add `-n 0` for one process" in text


def test_every_docs_page_is_linked_from_the_readme_and_the_index():
    readme, index = README.read_text(encoding="utf-8"), (DOCS / "README.md").read_text(encoding="utf-8")
    for page in DOCS.glob("*.md"):
        if page.name != "README.md":
            assert f"(docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"
            assert f"]({page.name})" in index, f"docs/README.md does not list {page.name}"


def without_code(text: str) -> str:
    """`text` with fenced blocks dropped and inline code made plain, so a "](" in code is no link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "code", text)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeat numbered -1, -2, ..."""
    seen: dict[str, int] = {}
    found = set()
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6} +(.+?) *#* *$", text, flags=re.M):
        words = heading.strip().lower().replace("`", "")
        slug = "".join(c for c in words if c in " -_" or unicodedata.category(c)[0] in "LN").replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", without_code(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_and_its_anchor(page):
    assert links(page), f"{page.relative_to(ROOT)} links nowhere: link the pages it relates to"
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.relative_to(ROOT)} links {target}: no such file"
        assert ROOT in linked.parents or linked == ROOT, (
            f"{page.relative_to(ROOT)} links {target}: outside the repository"
        )
        if anchor:
            assert linked.suffix == ".md", (
                f"{page.relative_to(ROOT)} links {target}: an anchor in a file that is no page"
            )
            assert anchor in anchors(linked), (
                f"{page.relative_to(ROOT)} links {target}: {linked.name} has no heading with that anchor "
                f"(it has {sorted(anchors(linked))})"
            )


def test_the_anchor_rule_is_githubs():
    page = DOCS / "models.md"
    assert {"probing-your-own-language-model-decoder-only-prompted", "premise-renderings-infotabs-61"} <= anchors(page)


def test_the_configuration_reference_is_the_one_the_schema_writes():
    """docs/configuration.md's reference is written from the schema: run
    `python -m tabprobe.config.reference` after changing the schema, config.yaml or a probe's options."""
    page = reference.PAGE.read_text(encoding="utf-8")
    assert reference.with_reference(page, reference.current_reference()) == page, (
        "docs/configuration.md is out of date: run PYTHONPATH=workflow python -m tabprobe.config.reference"
    )
    checked = subprocess.run(
        [sys.executable, "-m", "tabprobe.config.reference", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


def test_a_schema_key_appears_in_the_reference_and_one_without_a_description_is_refused():
    schema = yaml.safe_load(reference.SCHEMA.read_text(encoding="utf-8"))
    shipped = yaml.safe_load(reference.CONFIG.read_text(encoding="utf-8"))
    written = reference.reference(schema, shipped, {})
    for key in (*schema["properties"], "models.<model>.train.learning_rate", "probes.<probe>.curation"):
        assert f"| `{key}` |" in written, key
    grown = copy.deepcopy(schema)
    grown["properties"]["scoring"]["properties"]["quantiles"] = {"type": "integer", "description": "how many"}
    assert "| `scoring.quantiles` | integer |  |  | how many |" in reference.reference(grown, shipped, {})
    del grown["properties"]["scoring"]["properties"]["quantiles"]["description"]
    with pytest.raises(reference.Undocumented, match=r"config key scoring\.quantiles has no description"):
        reference.reference(grown, shipped, {})


def test_the_reference_spells_values_as_config_yaml_reads_them():
    for value in (5e-05, 0.8, 1000, None, True, "true", "neither", "{premise}\nQuestion:", [30, 49], {"E": "true"}):
        assert yaml.safe_load(schema_words.yaml_value(value)) == value, value


def test_the_data_contracts_name_every_column():
    layout = (DOCS / "layout.md").read_text(encoding="utf-8").split("## Data contracts between stages")[1]
    from tabprobe.data.infobox import table as infobox

    contracts = {name: getattr(schemas, name) for name in ("EXAMPLES", "PREDICTIONS", "SCORES", "RESULTS", "RELEVANCE")}
    # The infobox table type's (a dataset's table type declares its own, data/table_type.py).
    contracts.update(TABLES=infobox.TABLES, PROBE_EXAMPLES=infobox.PROBE_EXAMPLES)
    for name, schema in contracts.items():
        assert isinstance(schema, pa.Schema)
        for column in schema.names:
            assert f"`{column}`" in layout, f"docs/layout.md's data contracts do not name {name}'s {column}"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_readme_shows_the_first_screen_of_a_report():
    assert "](docs/images/report-first-screen.png)" in README.read_text(encoding="utf-8")
    assert png_size(FIRST_SCREEN) == (1280, 900)
    assert FIRST_SCREEN.stat().st_size < 300_000


def test_the_screenshot_script_writes_a_reports_first_screen(tmp_path):
    """bench/screenshot.py on a report assembled from constructed scores (tests/test_verdicts.py's):
    the command the README gives for its picture."""
    from browser import require_chromium
    from test_verdicts import constructed_run

    from tabprobe.report.assemble import assemble

    require_chromium()
    table, run = constructed_run()
    page = tmp_path / "index.html"
    page.write_text(assemble(table, run).html, encoding="utf-8")
    png = tmp_path / "shot" / "first-screen.png"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "screenshot.py"), str(page), str(png)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert png_size(png) == (1280, 900)
    assert 10_000 < png.stat().st_size < 300_000  # a page was drawn, and it stays small
