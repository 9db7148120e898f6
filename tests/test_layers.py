"""The library's floors: one package per stage, stacked in the order the rules run them, and no
import reaching from a lower floor to a higher one (read with ast, imports inside functions too:
tabprobe.code_inputs)."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

from tabprobe import code_inputs
from tabprobe.stages import RULE_MODULES

ROOT = Path(__file__).resolve().parents[1]
# Lowest first. core: the plumbing every stage shares (the modules at the library's root: io,
# layout, logs, errors, schemas, seeding, code inputs, word lists, stages); data: the datasets
# (data/<dataset>/) and the spaCy parse; config sits above models because its checks read
# checkpoints, and below scoring, which plans with it.
FLOORS = ["core", "data", "probes", "models", "config", "scoring", "inoculation", "report", "cli"]


def floor(path: str) -> str:
    first = path.split("/")[0]
    return first if "/" in path else "core"


def library_files() -> list[str]:
    return sorted(
        str(p.relative_to(code_inputs.PACKAGE_DIR))
        for p in code_inputs.PACKAGE_DIR.rglob("*.py")
        if "templates" not in p.parts
    )


def upward_imports() -> list[str]:
    found = []
    for path in library_files():
        source = (code_inputs.PACKAGE_DIR / path).read_text(encoding="utf-8")
        for imported in code_inputs.imported_files(source, path):
            if FLOORS.index(floor(imported)) > FLOORS.index(floor(path)):
                found.append(f"{path} imports {imported}")
    return found


def test_every_library_module_lives_on_a_known_floor():
    assert {floor(path) for path in library_files()} == set(FLOORS)


def test_no_module_imports_from_a_floor_above_its_own():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import():
    """The check itself: a data module importing the report would be caught."""
    source = "from tabprobe.report import figures\n"
    imported = code_inputs.imported_files(source, "data/infotabs/x.py")
    assert imported == ["report/figures.py"]
    assert FLOORS.index(floor(imported[0])) > FLOORS.index(floor("data/infotabs/x.py"))


def test_no_two_library_modules_import_each_other_in_a_circle():
    graph = {
        path: code_inputs.imported_files((code_inputs.PACKAGE_DIR / path).read_text(encoding="utf-8"), path)
        for path in library_files()
    }
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> list[str] | None:
        if node in trail:
            return trail[trail.index(node) :] + [node]
        if node in done:
            return None
        for nxt in graph.get(node, []):
            cycle = visit(nxt, [*trail, node])
            if cycle:
                return cycle
        done.add(node)
        return None

    for path in graph:
        cycle = visit(path, [])
        assert cycle is None, " -> ".join(cycle)


def test_every_rule_is_one_file_from_the_function_that_does_its_work():
    """A rule's script imports its job function from the stage module RULE_MODULES names and calls
    it; nothing stands between (the old jobs/ layer is gone)."""
    scripts = sorted((ROOT / "workflow" / "scripts").glob("*.py"))
    assert {s.stem for s in scripts} == set(RULE_MODULES)
    for script in scripts:
        rule = script.stem
        tree = ast.parse(script.read_text(encoding="utf-8"))
        imports = {
            (node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert (f"tabprobe.{RULE_MODULES[rule]}", rule) in imports, rule
        calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        assert rule in calls, rule
        stage_module = code_inputs.PACKAGE_DIR / (RULE_MODULES[rule].replace(".", "/") + ".py")
        defined = {
            n.name for n in ast.parse(stage_module.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)
        }
        assert rule in defined, f"{rule} is not defined in {stage_module.name}"
    assert not (code_inputs.PACKAGE_DIR / "jobs").exists()


# ---------------------------------------------------------------- the dataset seam (issue 44)

WORKFLOW = ROOT / "workflow"
DATASET_NAMES = re.compile(r"infotabs|tabfact", re.IGNORECASE)
# The rules of the paper dataset's own data, named by it (DESIGN-44.md: "InfoTabS-only rules that are
# InfoTabS's data may stay, named by InfoTabS"): its downloads, its relevance annotations and
# aligner (read in its annotation format, with its cleaning), and the external probe sets given in
# its format. Their scripts import its package, and stages.py's lines name it.
PAPER_DATASET_RULES = ("download_infotabs", "download_counterfactuals", "find_relevant_rows", "ingest_external_probe")
# Where a dataset's name may stand while issue 44's other steps are under way (none now: the report,
# step 2, reads every dataset's words from its declaration). An entry the test no longer needs fails.
NOT_YET: tuple[str, ...] = ()


def dataset_packages() -> list[str]:
    """The datasets' own packages, where their names belong: data/<name>/ and probes/<name>/ of
    every package that declares a dataset (data/<name>/dataset.py)."""
    names = [p.parent.name for p in (WORKFLOW / "tabprobe" / "data").glob("*/dataset.py")]
    return [f"tabprobe/{floor}/{name}/" for name in names for floor in ("data", "probes")]


def dataset_names_outside_their_packages() -> list[str]:
    allowed = (*dataset_packages(), *NOT_YET)
    allowed_scripts = {f"scripts/{rule}.py" for rule in PAPER_DATASET_RULES}
    paper_rule_line = re.compile(rf'^\s*"({"|".join(PAPER_DATASET_RULES)})": "data\.infotabs\.\w+",$')
    found = []
    for path in sorted(WORKFLOW.rglob("*.py")):
        where = path.relative_to(WORKFLOW).as_posix()
        if where.startswith(allowed) or where in allowed_scripts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if DATASET_NAMES.search(line) and not (where == "tabprobe/stages.py" and paper_rule_line.match(line)):
                found.append(f"workflow/{where}:{number}: {line.strip()}")
    return found


def test_no_module_outside_a_datasets_packages_names_a_dataset():
    """Stages ask the dataset (tabprobe.data.datasets.get_dataset) for what they need: a third
    dataset then needs no edit outside its own packages."""
    assert dataset_names_outside_their_packages() == []


def test_the_grep_sees_a_dataset_named_in_a_stage(tmp_path, monkeypatch):
    """The check itself: a stage module that names TabFact (a comment will do) is caught."""
    fake = tmp_path / "workflow"
    (fake / "tabprobe" / "models").mkdir(parents=True)
    (fake / "tabprobe" / "data" / "tabfact").mkdir(parents=True)
    (fake / "tabprobe" / "data" / "tabfact" / "dataset.py").write_text("# TabFact's own: allowed\n")
    (fake / "tabprobe" / "models" / "x.py").write_text("LABELS = 2  # TabFact's\n")
    monkeypatch.setattr(sys.modules[__name__], "WORKFLOW", fake)
    assert dataset_names_outside_their_packages() == ["workflow/tabprobe/models/x.py:1: LABELS = 2  # TabFact's"]


def test_every_not_yet_entry_is_still_needed():
    for folder in NOT_YET:
        files = sorted((WORKFLOW / folder).rglob("*.py"))
        assert any(DATASET_NAMES.search(f.read_text(encoding="utf-8")) for f in files), (
            f"{folder} no longer names a dataset: delete it from NOT_YET"
        )


# ---------------------------------------------------------------- the report names no probe (issue 44 step 2)

REPORT = WORKFLOW / "tabprobe" / "report"


def probe_names_in(folder: Path, probe_names: list[str]) -> list[str]:
    """Where a module under `folder` names a probe: a name with an underscore (no English word) as a
    word of any string or comment; a one-word name ("original") as a whole string, or in backticks."""
    joined = [n for n in probe_names if "_" in n]
    bare = [n for n in probe_names if "_" not in n]
    alternatives = "|".join(map(re.escape, sorted(joined, key=len, reverse=True)))
    # Not after ":" (a pooled column, "table4:label_flipped") nor inside brackets ("num_comparative[30-49]").
    anywhere = re.compile(rf"(?<![\w\[:])(?:{alternatives})(?![\w\]])") if joined else None
    quoted = re.compile(rf"`({'|'.join(map(re.escape, bare))})`") if bare else None
    found = []
    for path in sorted(folder.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(WORKFLOW).as_posix()
        pieces = [
            (t.start[0], t.string)
            for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type == tokenize.COMMENT
        ]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                pieces.append((node.lineno, node.value))
                if node.value in bare:
                    found.append(f"workflow/{where}:{node.lineno}: the string {node.value!r}")
        for line, text in pieces:
            for pattern in (p for p in (anywhere, quoted) if p):
                for match in pattern.finditer(text):
                    found.append(f"workflow/{where}:{line}: {match.group(0)}")
    return sorted(set(found))


def test_no_module_of_the_report_names_a_probe():
    """The report asks its plan (report/plan.py) which probe goes where, and each probe says it in
    its own module (`Probe.verdict_role`, `report_section`, family, label_change): a probe added,
    renamed or of a user's dataset needs no edit of the report."""
    from tabprobe.probes import REGISTRY

    assert probe_names_in(REPORT, sorted(REGISTRY)) == []


def test_the_grep_sees_a_probe_named_in_the_report(tmp_path):
    """The check itself: a probe named in a string, an f-string's text, backticks or a comment is
    caught; the English word "original" and a pooled column ("table4:label_flipped") are not."""
    (tmp_path / "x.py").write_text(
        'A = "hypothesis_only"\n'
        'B = f"{m} on `original`"\n'
        "# the relevant_row_deletion probe\n"
        'C = "the original prediction of table4:label_flipped"\n'
        'D = "original"\n',
        encoding="utf-8",
    )
    names = ["hypothesis_only", "original", "relevant_row_deletion", "label_flipped"]
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(sys.modules[__name__], "WORKFLOW", tmp_path)
    try:
        found = probe_names_in(tmp_path, names)
    finally:
        monkeypatch.undo()
    assert found == [
        "workflow/x.py:1: hypothesis_only",
        "workflow/x.py:2: `original`",
        "workflow/x.py:3: relevant_row_deletion",
        "workflow/x.py:5: the string 'original'",
    ]
