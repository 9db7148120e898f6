"""rules/*_inputs.smk wire paths only (issue 44): each input function is a single `return` handing
config and the wildcards to a library function (tabprobe.config.derived, inoculation_inputs,
report_inputs, job_settings), where every decision has a unit test without Snakemake; at most a
check of the request's wildcards (common.smk's `configured`) may come first. Read with ast: a
loop, a comprehension, a branch, a comparison or arithmetic in an input file is a decision made
where only Snakemake runs it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INPUT_FILES = sorted((ROOT / "rules").glob("*_inputs.smk"))
# Expressions that decide (which files, in what order, whether at all), rather than name a value.
DECIDING = {
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.IfExp: "a conditional expression",
    ast.BoolOp: "and/or",
    ast.Compare: "a comparison",
    ast.BinOp: "arithmetic or concatenation",
    ast.Lambda: "a lambda",
    ast.NamedExpr: "an assignment expression",
}
# Functions still deciding while their dataset's rework is under way on another branch of issue
# 44 (the data and probe inputs: branch `seam`). Delete an entry when its work is merged: the
# test fails for an entry that no longer decides, so the list cannot outlive the work.
# Keys: "<file>::<function>".
STILL_DECIDING_FOR_NOW = {
    "probe_inputs.smk::get_probe_sources",
    "probe_inputs.smk::get_probe_data",
    "probe_inputs.smk::get_relevance_annotations",
    "probe_inputs.smk::get_external_files",
    "probe_inputs.smk::get_original_examples",
    "probe_inputs.smk::get_external_spec",
}


def _deciding(node: ast.AST) -> list[str]:
    return [f"line {n.lineno}: {DECIDING[type(n)]}" for n in ast.walk(node) if type(n) in DECIDING]


# common.smk's checks of a request's wildcards (a model or probe config does not list: "did you
# mean"), which may come first, as a call of their own, before the library is asked.
REQUEST_CHECKS = {"configured", "model_config"}


def _is_request_check(statement: ast.stmt) -> bool:
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in REQUEST_CHECKS
        and [ast.unparse(a) for a in call.args] == ["wildcards"]
    )


def _function_problems(function: ast.FunctionDef) -> list[str]:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if body and _is_request_check(body[0]):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return [f"line {function.lineno}: {len(body)} statements where one `return <library call>` belongs"]
    return _deciding(body[0])


def decisions(source: str, filename: str) -> dict[str, list[str]]:
    """{"<file>::<name>": what decides in it} for an input file's functions and its module-level
    statements ("<file>::<module>"): only imports, function definitions, and names bound to a
    value or a library call belong there."""
    found: dict[str, list[str]] = {}
    for node in ast.parse(source, filename=filename).body:
        if isinstance(node, ast.FunctionDef):
            problems = _function_problems(node)
            key = f"{filename}::{node.name}"
        elif isinstance(node, ast.Import | ast.ImportFrom):
            continue
        elif isinstance(node, ast.Assign):
            problems, key = _deciding(node.value), f"{filename}::{'/'.join(ast.unparse(t) for t in node.targets)}"
        else:
            problems, key = [f"line {node.lineno}: a {type(node).__name__} statement"], f"{filename}::<module>"
        if problems:
            found.setdefault(key, []).extend(problems)
    return found


def all_decisions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in INPUT_FILES:
        found.update(decisions(path.read_text(encoding="utf-8"), path.name))
    return found


def test_there_are_input_files_to_check():
    names = {p.name for p in INPUT_FILES}
    assert {"inoculation_inputs.smk", "model_inputs.smk", "scoring_inputs.smk", "report_inputs.smk"} <= names


def test_every_input_function_passes_config_and_wildcards_to_the_library():
    found = {key: problems for key, problems in all_decisions().items() if key not in STILL_DECIDING_FOR_NOW}
    assert found == {}, "decisions in rules/*_inputs.smk belong in the library, with a unit test: " + "; ".join(
        f"{key} ({', '.join(problems)})" for key, problems in found.items()
    )


def test_every_entry_still_deciding_for_now_still_decides():
    """An entry whose function was moved to the library (or removed) must leave the list."""
    assert STILL_DECIDING_FOR_NOW - set(all_decisions()) == set()


def test_the_check_sees_each_kind_of_decision():
    """The check itself: what rules/inoculation_inputs.smk held before issue 44 is caught, and a
    one-line hand-over is not."""
    source = '''
CHALLENGE_SPLITS = derived.challenge_splits(config)
SOURCES = [str(Path(CODE_DIR) / p) for p in source_files("num_comparative")]


def get_inoculation_grid(wildcards):
    """The grid."""
    return experiments.inoculation_grid(config, wildcards.model, wildcards.experiment, wildcards.size)


def get_checkpoint(wildcards):
    model_config(wildcards)
    return derived.checkpoint_path(config, wildcards.model)


def get_inoculation_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return experiments.inoculation_inputs(config, wildcards.model, wildcards.experiment)


def get_challenge_members(split):
    def members(wildcards):
        return challenge_members(wildcards.experiment, split)

    return members


def get_inoculation_dev(wildcards):
    probe = defense_probe(wildcards.experiment)
    if probe:
        return {"dev": layout.probe_examples(probe, "dev")}
    return {"dev": layout.examples("dev")}


def get_inoculation_sizes(wildcards):
    return INOCULATION["sizes"] if INOCULATION else []


def get_inoculation_grid_dirs(wildcards):
    return sorted(set(get_inoculation_grid(wildcards).values()) | set(shared))


for _name in EXTERNALS:
    register_external(_name)
'''
    found = decisions(source, "x.smk")
    assert set(found) == {
        "x.smk::SOURCES",
        "x.smk::get_inoculation_inputs",
        "x.smk::get_challenge_members",
        "x.smk::get_inoculation_dev",
        "x.smk::get_inoculation_sizes",
        "x.smk::get_inoculation_grid_dirs",
        "x.smk::<module>",
    }
    assert found["x.smk::SOURCES"] == ["line 3: a comprehension", "line 3: arithmetic or concatenation"]
    assert found["x.smk::get_inoculation_sizes"] == ["line 36: a conditional expression"]
    assert found["x.smk::get_inoculation_grid_dirs"] == ["line 40: arithmetic or concatenation"]
    assert found["x.smk::<module>"] == ["line 43: a For statement"]
    # Only common.smk's checks of the request may come before the hand-over.
    assert found["x.smk::get_inoculation_inputs"] == ["line 16: 2 statements where one `return <library call>` belongs"]
