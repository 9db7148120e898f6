"""Where a config key was set: the file and line (or `--config`) that a problem names, so the
user knows where to fix it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import yaml


def _walk(node, path: Sequence) -> tuple[int, int | None]:
    """(how many parts of `path` were found, the line of the last one) in a composed YAML file.
    A part may be a dotted string ("models.minilm-struct.train.base"): at each level the longest key
    that starts it is taken, so names holding a dot (roberta.large) are found too."""
    parts = list(path)
    found, line = 0, None
    while parts and node is not None:
        part = parts[0]
        if isinstance(node, yaml.MappingNode):
            text = str(part)
            matches = [(k, v) for k, v in node.value if text == k.value or text.startswith(f"{k.value}.")]
            if not matches:
                break
            key, node = max(matches, key=lambda kv: len(kv[0].value))
            rest = text[len(key.value) + 1 :]
            parts = ([rest] if rest else []) + parts[1:]
            line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and str(part).split(".")[0].isdigit():
            index, _, rest = str(part).partition(".")
            if int(index) >= len(node.value):
                break
            node = node.value[int(index)]
            parts = ([rest] if rest else []) + parts[1:]
            line = node.start_mark.line + 1
        else:
            break
        found += 1
    return (found if not parts else -found), line


def _leaf_keys(mapping: dict, prefix: str = ""):
    """Dotted names of the values a (nested) mapping sets: {"a": {"b": 1}} -> "a.b"."""
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            yield from _leaf_keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def locate(path: Sequence, sources: Sequence[str | Path], overrides: dict | None = None) -> str | None:
    """ "file:line" of the key at `path` in the config file that sets it (a later file overrides
    an earlier one, as Snakemake merges them); "--config" where the command line's `--config`
    (`overrides`, which Snakemake merges last) sets it or a key enclosing it; failing both, the
    file:line of the nearest enclosing key that a file sets; None when nothing sets any of it."""
    dotted = ".".join(str(part) for part in path)
    if any(dotted == key or dotted.startswith(f"{key}.") for key in _leaf_keys(overrides or {})):
        return "--config"
    nearest = None
    for source in reversed(list(sources)):
        # Composed, not loaded: the nodes keep their lines. A file that cannot be read locates nothing.
        try:
            node = yaml.compose(Path(source).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        found, line = _walk(node, path)
        if line is None:
            continue
        if found > 0:
            return f"{source}:{line}"
        if nearest is None or -found > nearest[0]:
            nearest = (-found, f"{source}:{line}")
    return nearest[1] if nearest else None


def located(problem: str, sources: Sequence[str | Path], overrides: dict | None = None) -> str:
    """A problem "config key a.b.c: ..." prefixed with the file:line (or --config) that sets a.b.c."""
    match = re.match(r"config key ([^:\s]+): ", problem)
    where = locate([match.group(1)], sources, overrides) if match else None
    return f"{where}: {problem}" if where else problem


def duplicate_keys(source: str | Path) -> list[str]:
    """A problem line for every key a config file gives twice in one block. YAML keeps the last
    silently (so do Snakemake and PyYAML), and the first block's entries vanish from the plan: two
    `probes:` blocks run only the probes of the second."""
    try:
        root = yaml.compose(Path(source).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # reported by whoever reads the file
    problems, pending = [], [(root, [])]
    while pending:
        node, path = pending.pop()
        if isinstance(node, yaml.SequenceNode):
            pending += [(item, [*path, str(i)]) for i, item in enumerate(node.value)]
        if not isinstance(node, yaml.MappingNode):
            continue
        first_line: dict[str, int] = {}
        for key, value in node.value:
            name, line = str(key.value), key.start_mark.line + 1
            if name in first_line:
                dotted = ".".join([*path, name])
                problems.append(
                    (
                        line,
                        f"{source}:{line}: config key {dotted}: given twice in one block (lines {first_line[name]} "
                        f"and {line}); YAML keeps only the last, so what line {first_line[name]} sets would be "
                        "dropped without a word: merge the two into one",
                    )
                )
            else:
                first_line[name] = line
            pending.append((value, [*path, name]))
    return [problem for _, problem in sorted(problems)]
