"""Word lists kept as data files beside the code that reads them (probes/words/, words/), read
once per process.

A file is UTF-8 text, one entry a line; blank lines and lines starting with `#` are skipped, and
the first line says where the list came from. An entry is a word or phrase, a group of them
separated by ", " (`word_groups`), or a key, ": " and its value (`word_map`; `word_set_map`
reads the value as a group).

A path is relative to the package and written out as a string literal in the call: the rules'
code inputs (tabprobe.code_inputs) read these calls with ast, so a job lists the files its code
reads, and editing one re-runs exactly the jobs whose code reads it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
LOADERS = frozenset({"word_list", "word_set", "word_groups", "word_map", "word_set_map"})


@cache
def _entries(path: str) -> tuple[str, ...]:
    """The entries of the file at `path` (relative to the package), in file order."""
    lines = (line.strip() for line in (PACKAGE_DIR / path).read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def _group(entry: str) -> list[str]:
    return [word.strip() for word in entry.split(", ")]


def _pairs(path: str) -> list[tuple[str, str]]:
    pairs = [tuple(part.strip() for part in entry.split(": ", 1)) for entry in _entries(path)]
    keys = [pair[0] for pair in pairs]
    if any(len(pair) != 2 for pair in pairs) or len(set(keys)) != len(keys):
        raise ValueError(f"{path}: every entry must be 'key: value', each key once")
    return pairs


def word_list(path: str) -> tuple[str, ...]:
    """The entries, in order."""
    return _entries(path)


def word_set(path: str) -> frozenset[str]:
    return frozenset(_entries(path))


def word_groups(path: str) -> tuple[frozenset[str], ...]:
    """One set a line, its words separated by ", "."""
    return tuple(frozenset(_group(entry)) for entry in _entries(path))


def word_map(path: str) -> dict[str, str]:
    """{key: value} of "key: value" lines, in file order."""
    return dict(_pairs(path))


def word_set_map(path: str) -> dict[str, set[str]]:
    """{key: set of words} of "key: word, word, ..." lines, in file order."""
    return {key: set(_group(value)) for key, value in _pairs(path)}
