"""`tabprobe new-probe NAME`: a new probe's module and its test file (tests/probes/, where every
probe's own tests live) from templates, and its line in REGISTRY, added through the registry file's
syntax tree so the rest of the file is untouched."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from string import Template

from tabprobe.cli.errors import CommandFailed, UsageError
from tabprobe.cli.workflow import find_root, is_root
from tabprobe.config import PROBE_NAME

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
KINDS = {"table": "probe_table.py.tmpl", "hypothesis": "probe_hypothesis.py.tmpl"}
TEST_TEMPLATES = {"table": "test_probe_table.py.tmpl", "hypothesis": "test_probe_hypothesis.py.tmpl"}


def cmd_new_probe(args, console) -> int:
    name = args.name
    if not re.fullmatch(PROBE_NAME, name):
        raise UsageError(
            f"{name!r} is not a probe name: use letters, digits and underscores, starting with a letter "
            "or digit (e.g. my_probe), as in config.yaml"
        )
    if args.root:
        root = Path(args.root).resolve()
        if not is_root(root):
            raise UsageError(
                f"--root {args.root} is not the repository root: it has no Snakefile and "
                "workflow/tabprobe/probes/__init__.py"
            )
    else:
        root = find_root(Path.cwd())
        if root is None:
            raise UsageError(
                "no repository here: run inside the checkout (the folder holding Snakefile and "
                "workflow/tabprobe), or give it with --root"
            )
    registry_file = root / "workflow" / "tabprobe" / "probes" / "__init__.py"
    module_file = registry_file.with_name(f"{name}.py")
    test_file = root / "tests" / "probes" / f"test_probe_{name}.py"
    source = registry_file.read_text(encoding="utf-8")
    registered = registry_names(source, registry_file)
    # Everything is checked before anything is written.
    if name in registered:
        raise UsageError(
            f"a probe {name!r} is already registered in {registry_file}; choose another name "
            "(`tabprobe probes` lists the registered ones). Nothing written."
        )
    existing = [str(path) for path in (module_file, test_file) if path.exists()]
    if existing:
        one = len(existing) == 1
        raise UsageError(
            f"{' and '.join(existing)} already exist{'s' if one else ''}; choose another name, or remove "
            f"{'it' if one else 'them'} to start over. Nothing written."
        )
    registry = add_registry_line(source, name, registry_file)
    fields = {"name": name, "kind": args.kind}
    module = Template((TEMPLATES / KINDS[args.kind]).read_text(encoding="utf-8")).substitute(fields)
    test = Template((TEMPLATES / TEST_TEMPLATES[args.kind]).read_text(encoding="utf-8")).substitute(fields)
    test_file.parent.mkdir(parents=True, exist_ok=True)
    module_file.write_text(module, encoding="utf-8")
    test_file.write_text(test, encoding="utf-8")
    registry_file.write_text(registry, encoding="utf-8")

    def shown(path: Path) -> str:
        return str(path.relative_to(root))

    console.print(f"New {args.kind} probe {name!r}:")
    console.print(f"  wrote {shown(module_file)} (a small working probe to make your own)")
    console.print(f"  wrote {shown(test_file)} (tests of what it does; edit them with the probe)")
    console.print(f'  added "{name}" to REGISTRY in {shown(registry_file)}')
    console.print("Next:")
    steps = [
        f"edit {shown(module_file)}: apply() and the PROBE fields (the TODO comments say what to change)",
        f"tabprobe show {name} --split alpha1 -n 5        # what it does to real examples",
        f"python -m pytest {shown(test_file)} tests/test_probes.py -k {name}",
        f"add `{name}: {{}}` under probes: in config.yaml",
        "snakemake -n                # lists only the new probe's jobs (and the report)",
        "snakemake --cores all",
    ]
    for i, step in enumerate(steps, 1):
        console.print(f"  {i}. {step}")
    return 0


def _registry_dict(source: str, path: Path) -> ast.Dict:
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise CommandFailed(f"{path} does not parse ({error}); fix it first") from None
    for node in tree.body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        )
        if isinstance(target, ast.Name) and target.id == "REGISTRY" and isinstance(node.value, ast.Dict):
            return node.value
    raise CommandFailed(f"{path} has no `REGISTRY = {{...}}` dict to add the probe to")


def registry_names(source: str, path: Path) -> list[str]:
    """The probe names in REGISTRY, read from the file's text (the --root checkout may not be the
    library this command imported)."""
    return [
        key.value
        for key in _registry_dict(source, path).keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]


def add_registry_line(source: str, name: str, path: Path) -> str:
    """`source` with `"name": "tabprobe.probes.name:PROBE",` after the last REGISTRY entry."""
    registry = _registry_dict(source, path)
    lines = source.splitlines(keepends=True)
    entry = f'"{name}": "tabprobe.probes.{name}:PROBE",'
    if not registry.keys:
        raise CommandFailed(f"REGISTRY in {path} is empty; add the line {entry} by hand")
    last_key, last_value = registry.keys[-1], registry.values[-1]
    if last_value.end_lineno == registry.end_lineno:
        raise CommandFailed(f"REGISTRY in {path} closes on the line of its last entry; add {entry} by hand")
    indent = " " * last_key.col_offset
    end_line = last_value.end_lineno - 1  # 0-based line of the last entry's end
    line = lines[end_line]
    after = line.encode("utf-8")[last_value.end_col_offset :].decode("utf-8")
    if not after.lstrip().startswith(","):
        cut = len(line) - len(after)
        lines[end_line] = line[:cut] + "," + after
    # After the last entry and any comment lines that follow it, before the closing brace.
    insert_at = registry.end_lineno - 1
    lines.insert(insert_at, f"{indent}{entry}\n")
    result = "".join(lines)
    if registry_names(result, path)[-1] != name:
        raise CommandFailed(f"could not add {name!r} to REGISTRY in {path}; add the line {entry} by hand")
    return result
