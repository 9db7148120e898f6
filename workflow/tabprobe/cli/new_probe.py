"""`tabprobe new-probe NAME --dataset DATASET`: a new probe of a dataset from templates written for
its table type (an infobox dataset's `table` and `hypothesis` kinds, a relational one's `record` and
`statement`): its module in the dataset's probes package (probes/<dataset>/<kind>/NAME.py), its
test file (tests/probes/, where every probe's own tests live; beside the module for a dataset of
your own), and its line in the dataset's registry (probes/<dataset>/registry.py, `PROBES`), added
through the registry file's syntax tree so the rest of the file is untouched."""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from tabprobe.cli.configfile import read_config
from tabprobe.cli.errors import CommandFailed, UsageError
from tabprobe.cli.workflow import find_root, is_root
from tabprobe.config import PROBE_NAME
from tabprobe.errors import did_you_mean

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
# The kinds of probe a template is written for, by table type: kind -> (probe template, test template).
KINDS = {
    "infobox": {
        "table": ("probe_table.py.tmpl", "test_probe_table.py.tmpl"),
        "hypothesis": ("probe_hypothesis.py.tmpl", "test_probe_hypothesis.py.tmpl"),
    },
    "relational": {
        "record": ("probe_record.py.tmpl", "test_probe_record.py.tmpl"),
        "statement": ("probe_statement.py.tmpl", "test_probe_statement.py.tmpl"),
    },
}
ALL_KINDS = sorted({kind for kinds in KINDS.values() for kind in kinds})


@dataclass(frozen=True)
class Target:
    """Where a new probe of a dataset goes: its module, its test, the registry file and line."""

    module_file: Path
    test_file: Path
    registry_file: Path
    target: str  # its registry line's value, "module:PROBE"
    setup: str  # what its test runs first (a dataset of your own is registered, as config does)


def cmd_new_probe(args, console) -> int:
    from tabprobe.data import datasets

    name = args.name
    if not re.fullmatch(PROBE_NAME, name):
        raise UsageError(
            f"{name!r} is not a probe name: use letters, digits and underscores, starting with a letter "
            "or digit (e.g. my_probe), as in config.yaml"
        )
    root = _root(args.root)
    config, _ = read_config(args.configfile)
    datasets.use_config(config)  # a dataset of your own, named in config
    known = datasets.names()
    dataset_name = args.dataset or datasets.paper_dataset().name
    if dataset_name not in known:
        hint = did_you_mean(dataset_name, known)
        raise UsageError(
            f"no dataset {dataset_name!r}.{hint} Datasets: {', '.join(known)} (one of your own is named "
            "under `datasets:` in the config, --configfile)"
        )
    dataset = datasets.get_dataset(dataset_name)
    kinds = KINDS[dataset.table_type.name]
    kind = args.kind or next(iter(kinds))
    if kind not in kinds:
        raise UsageError(
            f"--kind {kind}: {dataset.title}'s tables are {dataset.table_type.name}; its kinds are "
            f"{', '.join(kinds)} ({', '.join(k for t, ks in KINDS.items() if t != dataset.table_type.name for k in ks)} "
            "are another table type's)"
        )
    target = _target(root, dataset, kind, name, config)
    source = target.registry_file.read_text(encoding="utf-8")
    registered = registry_names(source, target.registry_file)
    # Everything is checked before anything is written.
    if name in registered or name in _registered_elsewhere():
        raise UsageError(
            f"a probe {name!r} is already registered; choose another name "
            "(`tabprobe probes` lists the registered ones). Nothing written."
        )
    existing = [str(path) for path in (target.module_file, target.test_file) if path.exists()]
    if existing:
        one = len(existing) == 1
        raise UsageError(
            f"{' and '.join(existing)} already exist{'s' if one else ''}; choose another name, or remove "
            f"{'it' if one else 'them'} to start over. Nothing written."
        )
    registry = add_registry_line(source, name, target.target, target.registry_file)
    fields = _fields(dataset, name, kind, target)
    probe_template, test_template = kinds[kind]
    module = Template((TEMPLATES / probe_template).read_text(encoding="utf-8")).substitute(fields)
    test = Template((TEMPLATES / test_template).read_text(encoding="utf-8")).substitute(fields)
    target.module_file.parent.mkdir(parents=True, exist_ok=True)
    target.test_file.parent.mkdir(parents=True, exist_ok=True)
    target.module_file.write_text(module, encoding="utf-8")
    target.test_file.write_text(test, encoding="utf-8")
    target.registry_file.write_text(registry, encoding="utf-8")
    _say(console, root, dataset, kind, name, target)
    return 0


def _root(given: str | None) -> Path:
    if given:
        root = Path(given).resolve()
        if not is_root(root):
            raise UsageError(
                f"--root {given} is not the repository root: it has no Snakefile and workflow/tabprobe/probes/__init__.py"
            )
        return root
    root = find_root(Path.cwd())
    if root is None:
        raise UsageError(
            "no repository here: run inside the checkout (the folder holding Snakefile and "
            "workflow/tabprobe), or give it with --root"
        )
    return root


def _target(root: Path, dataset, kind: str, name: str, config: dict) -> Target:
    """A built-in dataset's probe goes into the checkout at `root` (its probes package there); one
    of a dataset of your own beside its registry module, wherever its package is."""
    if not dataset.probes:
        raise UsageError(f"dataset {dataset.name} names no probes module (`Dataset.probes`); give it one first")
    package = dataset.probes.rpartition(".")[0]
    if dataset.probes.startswith("tabprobe."):
        registry_file = root / "workflow" / Path(*dataset.probes.split(".")).with_suffix(".py")
        module_file = registry_file.parent / kind / f"{name}.py"
        test_file = root / "tests" / "probes" / f"test_probe_{name}.py"
        return Target(module_file, test_file, registry_file, f"{package}.{kind}.{name}:PROBE", "")
    spec = importlib.util.find_spec(dataset.probes)
    if spec is None or not spec.origin:
        raise UsageError(f"dataset {dataset.name}: its probes module {dataset.probes} is not found")
    registry_file = Path(spec.origin)
    entry = (config.get("datasets") or {}).get(dataset.name) or {}
    setup = (
        "from tabprobe.data import datasets\n\n"
        f"datasets.register({dataset.name!r}, {entry.get('package')!r}, {entry.get('path')!r})  # as its config does\n"
    )
    return Target(
        registry_file.with_name(f"{name}.py"),
        registry_file.with_name(f"test_probe_{name}.py"),
        registry_file,
        f"{package}.{name}:PROBE",
        setup,
    )


def _registered_elsewhere() -> list[str]:
    from tabprobe.probes import REGISTRY

    return list(REGISTRY)


def _fields(dataset, name: str, kind: str, target: Target) -> dict[str, str]:
    """What the templates are filled with: the probe's names, its dataset's labels, a split of it."""
    labels = dataset.labels
    rule = ", ".join(f'{label}="{label}"' for label in labels)
    return {
        "name": name,
        "kind": kind,
        "dataset": dataset.name,
        "title": dataset.title,
        "labels": "frozenset({" + ", ".join(f'"{label}"' for label in labels) + "})",
        "edited_labels": "frozenset({" + ", ".join(f'"{label}"' for label in labels if label != "N") + "})",
        "rule": rule,
        "split": dataset.report.showcase_order[0] if dataset.report.showcase_order else dataset.splits[0],
        "setup": target.setup,
    }


def _say(console, root: Path, dataset, kind: str, name: str, target: Target) -> None:
    def shown(path: Path) -> str:
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

    split = _fields(dataset, name, kind, target)["split"]
    console.print(f"New {kind} probe {name!r} of {dataset.title}:")
    console.print(f"  wrote {shown(target.module_file)} (a small working probe to make your own)")
    console.print(f"  wrote {shown(target.test_file)} (tests of what it does; edit them with the probe)")
    console.print(f'  added "{name}" to PROBES in {shown(target.registry_file)}')
    console.print("Next:")
    steps = [
        f"edit {shown(target.module_file)}: apply() and the PROBE fields (the TODO comments say what to change)",
        f"tabprobe show {name} --split {split} -n 5        # what it does to real examples",
        f"python -m pytest {shown(target.test_file)} tests/test_probes.py -k {name}",
        f"add `{name}: {{}}` under probes: in config.yaml",
        "snakemake -n                # lists only the new probe's jobs (and the report)",
        "snakemake --cores all",
    ]
    for i, step in enumerate(steps, 1):
        console.print(f"  {i}. {step}")


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
        if isinstance(target, ast.Name) and target.id == "PROBES" and isinstance(node.value, ast.Dict):
            return node.value
    raise CommandFailed(f"{path} has no `PROBES = {{...}}` dict to add the probe to")


def registry_names(source: str, path: Path) -> list[str]:
    """The probe names in a registry's PROBES, read from the file's text (the --root checkout may
    not be the library this command imported)."""
    return [
        key.value
        for key in _registry_dict(source, path).keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]


def add_registry_line(source: str, name: str, target: str, path: Path) -> str:
    """`source` with `"name": "target",` after the last PROBES entry."""
    registry = _registry_dict(source, path)
    lines = source.splitlines(keepends=True)
    entry = f'"{name}": "{target}",'
    if not registry.keys:
        if registry.end_lineno == registry.lineno:
            raise CommandFailed(f"PROBES in {path} is empty on one line; add the line {entry} by hand")
        lines.insert(registry.end_lineno - 1, f"    {entry}\n")
        return "".join(lines)
    last_key, last_value = registry.keys[-1], registry.values[-1]
    if last_value.end_lineno == registry.end_lineno:
        raise CommandFailed(f"PROBES in {path} closes on the line of its last entry; add {entry} by hand")
    indent = " " * last_key.col_offset
    end_line = last_value.end_lineno - 1  # 0-based line of the last entry's end
    line = lines[end_line]
    after = line.encode("utf-8")[last_value.end_col_offset :].decode("utf-8")
    if not after.lstrip().startswith(","):
        cut = len(line) - len(after)
        lines[end_line] = line[:cut] + "," + after
    # After the last entry and any comment lines that follow it, before the closing brace.
    lines.insert(registry.end_lineno - 1, f"{indent}{entry}\n")
    result = "".join(lines)
    if registry_names(result, path)[-1] != name:
        raise CommandFailed(f"could not add {name!r} to PROBES in {path}; add the line {entry} by hand")
    return result
