"""No library module over 500 lines, no function over 80 (issue 34): a reader takes in a module
or a function whole. A function counts from its `def` line to its last line; nested functions
and methods count on their own, and also inside the function that holds them."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[1] / "workflow" / "tabprobe"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

# Over their limit while their split is under way on another branch of issue 34. Delete an entry
# when its split is merged: the test fails for an entry that is no longer over its limit, so the
# list cannot outlive the work. Keys: a module's path under workflow/tabprobe, or
# "path::qualified.name" for a function.
OVER_THE_LIMIT_FOR_NOW: set[str] = set()  # empty since issue 34's splits were merged


@cache
def sizes() -> dict[str, int]:
    """Every module's line count and every function's, by key (see OVER_THE_LIMIT_FOR_NOW)."""
    found = {}
    for path in sorted(LIBRARY.rglob("*.py")):
        module = path.relative_to(LIBRARY).as_posix()
        text = path.read_text(encoding="utf-8")
        found[module] = len(text.splitlines())
        found.update(
            (f"{module}::{name}", node.end_lineno - node.lineno + 1)
            for name, node in _functions(ast.parse(text, filename=str(path)))
        )
    return found


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function and method, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.<locals>.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def limit(key: str) -> int:
    return MAX_FUNCTION_LINES if "::" in key else MAX_MODULE_LINES


def test_no_module_or_function_is_over_its_limit():
    over = {key: lines for key, lines in sizes().items() if lines > limit(key) and key not in OVER_THE_LIMIT_FOR_NOW}
    assert not over, "\n".join(
        f"{key}: {lines} lines, over {limit(key)}; split it into named steps" for key, lines in sorted(over.items())
    )


def test_every_allowed_offender_is_still_over_its_limit():
    found = sizes()
    stale = sorted(key for key in OVER_THE_LIMIT_FOR_NOW if found.get(key, 0) <= limit(key))
    assert not stale, (
        f"{', '.join(stale)}: gone or within the limit; delete from OVER_THE_LIMIT_FOR_NOW in {Path(__file__).name}"
    )


def test_the_count_reads_def_to_last_line_and_qualifies_nested_names():
    tree = ast.parse("class A:\n    def m(self):\n        def inner():\n            pass\n        return 1\n")
    assert [(name, n.end_lineno - n.lineno + 1) for name, n in _functions(tree)] == [
        ("A.m", 4),
        ("A.m.<locals>.inner", 2),
    ]
