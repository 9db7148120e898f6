"""A config value and a schema node in words, as docs/configuration.md spells them: the reference
page (`python -m tabprobe.config.reference`) and the config check's messages (checks.py) say a
key's allowed values the same way."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml


def yaml_value(value: Any) -> str:
    """`value` as config.yaml would spell it, on one line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):  # PyYAML reads 5e-05 as a string: write 0.00005
        fixed = format(value, "f").rstrip("0")
        return next(t for t in (repr(value), fixed + ("0" if fixed.endswith(".") else "")) if _reads_as(t, value))
    if isinstance(value, str):
        plain = re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_./:+-]*", value) and _reads_as(value, value)
        return value if plain else json.dumps(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {yaml_value(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(yaml_value(v) for v in value) + "]"


def _reads_as(text: str, value: Any) -> bool:
    """Whether YAML reads `text` back as `value` (of the same type: `true` is no string)."""
    read = yaml.safe_load(text)
    return type(read) is type(value) and read == value


def code(value: Any) -> str:
    return f"`{yaml_value(value)}`"


def _bounds(node: Mapping) -> str:
    said = [
        f"{sign} {yaml_value(node[word])}"
        for word, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
        if word in node
    ]
    return " " + ", ".join(said) if said else ""


def _types(node: Mapping) -> list[str]:
    kind = node.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def is_block(node: Any) -> bool:
    """A mapping whose keys the reference lists one by one (fixed keys, or named entries of such)."""
    if not isinstance(node, Mapping):
        return False
    entries = node.get("additionalProperties")
    return "properties" in node or (isinstance(entries, Mapping) and "properties" in entries)


def kind_of(node: Mapping) -> str:
    """The allowed values of a schema node, in words."""
    if "oneOf" in node:  # alternatives: each in words, a constant spelled as config.yaml writes it
        return " or ".join(code(o["const"]) if "const" in o else kind_of(o) for o in node["oneOf"])
    if "enum" in node:
        return "one of " + ", ".join(code(v) for v in node["enum"])
    types = _types(node)
    if not types and is_block(node):
        types = ["object"]
    words = []
    for kind in types:
        if kind == "null":
            continue
        if kind in ("integer", "number"):
            words.append(kind + _bounds(node))
        elif kind == "boolean":
            words.append("`true` or `false`")
        elif kind == "string":
            words.append("string")
        elif kind == "array":
            words.append(_array(node))
        elif kind == "object":
            words.append(_mapping(node))
    if "null" in types:
        words.append("`null`")
    return " or ".join(words)


def _array(node: Mapping) -> str:
    items = node.get("items", {})
    if node.get("minItems") == node.get("maxItems") == 2:
        return f"[low, high] of {_plural(items)}"
    size = f", at least {node['minItems']}" if node.get("minItems", 0) > 1 else ""
    unique = ", no repeats" if node.get("uniqueItems") else ""
    return f"list of {_plural(items)}{size}{unique}"


def _plural(items: Mapping) -> str:
    if "enum" in items:
        return ", ".join(code(v) for v in items["enum"])
    if _types(items) == ["array"]:
        return _array(items).replace("[low, high] of", "[low, high] pairs of", 1)
    kind = kind_of(items)
    return re.sub(r"^(integer|number|string)", r"\1s", kind)


def _mapping(node: Mapping) -> str:
    entries = node.get("additionalProperties")
    words = "mapping"
    if isinstance(entries, Mapping) and "properties" not in entries:
        words = f"mapping of names to {kind_of(entries)}"
    elif isinstance(entries, Mapping):
        pattern = node.get("propertyNames", {}).get("pattern")
        words = f"mapping of names (`{pattern}`)" if pattern else "mapping of names"
    required = node.get("required")
    return words + (f"; requires {', '.join(f'`{key}`' for key in required)}" if required else "")
