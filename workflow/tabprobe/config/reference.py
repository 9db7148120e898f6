"""The reference part of docs/configuration.md, written from what the config is checked against:
the schema's descriptions, types and defaults (workflow/schemas/config.schema.yaml), the defaults
of the two blocks the schema cannot hold (`defaults.py`), the options each registered probe
declares (`Probe.options`), and the values the shipped config.yaml gives. So the page cannot drift
from the schema: a key the schema gains appears on the page, and one it loses disappears.

    python -m tabprobe.config.reference            # rewrite the part between the page's markers
    python -m tabprobe.config.reference --check    # exit 1 where the page differs (tests/test_docs.py)

Everything outside the markers is prose, edited by hand. A schema key without a description is
an error: describe it in the schema, then run the command.

Not imported by the workflow or its jobs (nothing imports this module), so editing it re-runs no job.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tabprobe.config.defaults import INOCULATION_DEFAULTS, SCHEMA, VARIANCE_DEFAULTS
from tabprobe.config.schema_words import code, is_block, kind_of

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "configuration.md"
CONFIG = ROOT / "config.yaml"

BEGIN = "<!-- reference: written by `python -m tabprobe.config.reference` from the schema; edit the schema, not this part -->"
END = "<!-- end of reference -->"

# What a named entry is called in a key's path (`models.<model>.premise`).
PLACEHOLDERS = {"probes": "<probe>", "models": "<model>"}
# The blocks whose defaults live in defaults.py, not in the schema.
BLOCK_DEFAULTS = {"inoculation": INOCULATION_DEFAULTS, "controlled_variance": VARIANCE_DEFAULTS}
NOT_SHIPPED = ""  # the cell of a key config.yaml does not set (or cannot: a key under <model>)


class Undocumented(ValueError):
    """A schema key (or probe option) without a description."""


@dataclass(frozen=True)
class Row:
    key: str
    kind: str
    default: str
    shipped: str
    meaning: str


def describe(node: Mapping, key: str) -> str:
    text = node.get("description")
    if not text:
        raise Undocumented(
            f"config key {key} has no description: add one in workflow/schemas/config.schema.yaml "
            f"(it becomes the key's line in docs/configuration.md), then run python -m tabprobe.config.reference"
        )
    return " ".join(str(text).split())


def walk(node: Mapping, path: str) -> Iterator[tuple[str, Mapping, Mapping]]:
    """(path, node, parent) of every key below `node`, depth first, in the schema's order."""
    properties = node.get("properties")
    if properties:
        for key, child in properties.items():
            yield f"{path}.{key}", child, node
            if is_block(child):
                yield from walk(child, f"{path}.{key}")
        return
    entry = node.get("additionalProperties")
    if is_block(entry):
        named = f"{path}.{PLACEHOLDERS.get(path.rsplit('.', 1)[-1], '<name>')}"
        yield named, entry, node
        yield from walk(entry, named)


def shipped_value(shipped: Mapping, path: str) -> str:
    value: Any = shipped
    for part in path.split("."):
        if part.startswith("<") or not isinstance(value, Mapping) or part not in value:
            return NOT_SHIPPED
        value = value[part]
    return NOT_SHIPPED if isinstance(value, Mapping) else code(value)


def default_of(path: str, node: Mapping) -> str:
    if "default" in node:
        return code(node["default"])
    block, _, key = path.partition(".")
    if key in BLOCK_DEFAULTS.get(block, {}):
        return code(BLOCK_DEFAULTS[block][key])
    return ""


def row(path: str, node: Mapping, parent: Mapping | None, shipped: Mapping) -> Row:
    kind = kind_of(node)
    if parent is not None and path.rsplit(".", 1)[-1] in parent.get("required", ()):
        kind += "; required"
    return Row(path, kind, default_of(path, node), shipped_value(shipped, path), describe(node, path))


def table(rows: Sequence[Row]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| key | allowed | default | config.yaml | meaning |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r.key}` | {cell(r.kind)} | {cell(r.default)} | {cell(r.shipped)} | {cell(r.meaning)} |")
    return "\n".join(lines)


def reference(schema: Mapping, shipped: Mapping, probe_options: Mapping[str, Mapping[str, Mapping]]) -> str:
    """The generated part of the page: the top-level keys, then one table per block, then the
    options particular probes declare."""
    top = schema["properties"]
    parts = [
        "**default** is the schema's default, what a key left out gets (in a block of your own, or in your file "
        "alone under `--replace-workflow-config`); **config.yaml** is what the shipped config.yaml sets, which "
        "every run starts from unless it passes `--replace-workflow-config`. An empty cell: none.",
        "### Top-level keys",
        table([row(key, node, schema, shipped) for key, node in top.items() if not is_block(node)]),
    ]
    for key, node in top.items():
        if not is_block(node):
            continue
        rows = [row(key, node, schema, shipped)]
        rows += [row(path, child, parent, shipped) for path, child, parent in walk(node, key)]
        parts += [f"### `{key}`", table(rows)]
    option_rows = [
        row(f"probes.{probe}.{option}", spec, None, shipped)
        for probe, options in probe_options.items()
        for option, spec in options.items()
    ]
    parts += [
        "### Options of particular probes",
        "Declared by each probe (`Probe.options` in its module under `workflow/tabprobe/probes/`) and checked "
        "with the config before any job runs; `tabprobe probes` lists every probe.",
        table(option_rows) if option_rows else "None.",
    ]
    return "\n\n".join(parts)


def registered_probe_options() -> dict[str, Mapping[str, Mapping]]:
    from tabprobe.probes import REGISTRY, get_probe  # imports every probe module: a few seconds

    return {name: dict(probe.options) for name in REGISTRY if (probe := get_probe(name)).options}


def current_reference() -> str:
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    shipped = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    return reference(schema, shipped, registered_probe_options())


def with_reference(page: str, generated: str) -> str:
    """`page` with the part between its markers replaced by `generated`."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(
            f"{PAGE}: the markers of the generated part are missing; put these two lines where it goes:\n{BEGIN}\n{END}"
        )
    return page[: start + len(BEGIN)] + "\n\n" + generated + "\n\n" + page[end:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabprobe.config.reference",
        description="Write the configuration reference of docs/configuration.md from the config schema.",
    )
    parser.add_argument("--check", action="store_true", help="only say whether the page is up to date (exit 1 if not)")
    parser.add_argument("--page", type=Path, default=PAGE, help=f"the page (default {PAGE.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    try:
        text = args.page.read_text(encoding="utf-8")
        updated = with_reference(text, current_reference())
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.check:
        if updated != text:
            print(f"{args.page} is out of date: run python -m tabprobe.config.reference", file=sys.stderr)
            return 1
        print(f"{args.page}: up to date")
        return 0
    if updated != text:
        args.page.write_text(updated, encoding="utf-8")
        print(f"{args.page}: rewritten")
    else:
        print(f"{args.page}: already up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
