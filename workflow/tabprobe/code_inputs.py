"""Which library files a piece of code runs: its imports of tabprobe modules, followed
transitively (read with ast, nothing is imported).

A Snakemake script rule notices edits to its script, not to the modules the script imports, so
every rule lists the import closure of its script as inputs (rules/common.smk, `code_of`): editing
seeding.py re-scores, editing a probe's helper re-runs exactly the probes that import it.

Imports inside functions count (they run when the function does). A package's face
(`__init__.py`) counts only where something is taken from it, never as the parent of a module
taken from inside it. The probe registry (probes/__init__.py) is never followed: a registry line
names a probe, and adding one must run only the new probe's jobs; probe modules are loaded by
name at run time and each probe's jobs list its own closure (`probes.source_files`).

The word lists a module reads (tabprobe.wordlists: a loader called with a literal path, such as
`word_set("probes/words/hedges.txt")`) are part of its closure too: editing one re-runs exactly
the jobs whose code reads it.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from tabprobe.wordlists import LOADERS

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGE = PACKAGE_DIR.name  # "tabprobe"
NEVER_FOLLOWED = frozenset({"probes/__init__.py"})


def _module_file(parts: list[str]) -> str | None:
    """The file of module tabprobe.<parts> relative to the package, or None if there is none."""
    if not parts:
        return "__init__.py"
    for candidate in ("/".join(parts) + ".py", "/".join(parts) + "/__init__.py"):
        if (PACKAGE_DIR / candidate).is_file():
            return candidate
    return None


def imported_files(source: str, where: str | None) -> list[str]:
    """Library files that `source` imports directly. `where`: its path relative to the package
    (for relative imports), or None for code outside it (a workflow script)."""
    return _imports_among(ast.walk(ast.parse(source)), where)


def _imports_among(nodes: Iterable[ast.AST], where: str | None) -> list[str]:
    package = where.split("/")[:-1] if where is not None else None
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    found.append(_module_file(alias.name.split(".")[1:]))
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if package is None:
                continue
            base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
        elif node.module and node.module.split(".")[0] == PACKAGE:
            base = node.module.split(".")[1:]
        else:
            continue
        for alias in node.names:
            # `from .probes import invariants` takes a module; `from .io import write_json` a name.
            submodule = _module_file([*base, alias.name])
            found.append(submodule or _module_file(base))
    return sorted({f for f in found if f is not None})


def data_files(source: str, where: str | None = None) -> list[str]:
    """The word lists that `source` reads: the literal paths of its calls to a tabprobe.wordlists
    loader (relative to the package). A loader called with anything else is an error: the file it
    reads could not be an input of the jobs that run it."""
    return _word_lists_among(ast.walk(ast.parse(source)), where)


def _word_lists_among(nodes: Iterable[ast.AST], where: str | None) -> list[str]:
    found = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name not in LOADERS:
            continue
        path = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
            raise ValueError(
                f"{where or 'code'}, line {node.lineno}: {name}() must be given its file as one string literal"
            )
        found.append(path.value)
    return sorted(set(found))


def closure(files: Iterable[str]) -> list[str]:
    """`files` (relative to the package), every library file they import and every word list
    they read, transitively."""
    seen: set[str] = set()
    pending = [f for f in files if f not in NEVER_FOLLOWED]
    while pending:
        path = pending.pop()
        if path in seen or not (PACKAGE_DIR / path).is_file():
            continue
        seen.add(path)
        if path.endswith(".py"):
            pending += [f for f in _library_imports(path) if f not in NEVER_FOLLOWED]
    return sorted(seen)


@cache
def _library_imports(path: str) -> list[str]:
    # Read once per process: Snakemake asks for a probe's closure once per generate_probe job and
    # for every rule's at parse time (again in each cluster job), over the same few dozen files.
    # Parsed and walked once for both (each Snakemake start reads about 140 files: 2.3 s of its
    # start when each was parsed and walked twice).
    nodes = list(ast.walk(ast.parse((PACKAGE_DIR / path).read_text(encoding="utf-8"))))
    return _imports_among(nodes, path) + _word_lists_among(nodes, path)


def of_script(script: str | Path) -> list[str]:
    """The library files a workflow script runs (relative to the package)."""
    return closure(imported_files(Path(script).read_text(encoding="utf-8"), None))


def of_module(module: str) -> list[str]:
    """The files a job runs that runs `module` (a dotted name, as a "module:function" line names it):
    a library module's closure, relative to the package; another module (a user's dataset package,
    outside the library) its own file, absolute, and the library files it imports."""
    parts = module.split(".")
    if parts[0] == PACKAGE:
        return closure([f for f in [_module_file(parts[1:])] if f])
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        raise ModuleNotFoundError(f"no module {module!r} to list as code inputs (is its folder on the path?)")
    path = Path(spec.origin).resolve()
    return [str(path), *closure(imported_files(path.read_text(encoding="utf-8"), None))]


def jobs_import_from(folder: str) -> None:
    """Make every job this process starts import the library from `folder` (the workflow's own
    copy): Snakemake puts a script's folder at the end of sys.path, after site-packages, where an
    installed tabprobe (another clone's editable install, a release) would be found first, while
    the rules track this workflow's files. PYTHONPATH comes before site-packages, in local jobs,
    in conda envs and in cluster jobs (which inherit the environment and parse the Snakefile again)."""
    others = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != folder]
    os.environ["PYTHONPATH"] = os.pathsep.join([folder, *others])
