"""The library's floors: one package per stage, stacked in the order the rules run them, and no
import reaching from a lower floor to a higher one (read with ast, imports inside functions too:
tabprobe.code_inputs)."""

from __future__ import annotations

import ast
from pathlib import Path

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
