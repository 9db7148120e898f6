"""Reading raw InfoTabS (TSV of hypotheses + one JSON file per table), validated line by line.

Layout of an InfoTabS folder (the official repository, or a user's set in the same format):

    data/maindata/infotabs_{train,dev,test_alpha1,test_alpha2,test_alpha3}.tsv
    data/tables/json/{table_id}.json
    data/tables/table_categories.tsv          (optional: table_id, category)

Bad input stops with every problem's file, line and reason. Duplicates are the exception:
the official data has some, so by default they are kept and reported as a warning.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from . import LABELS, schemas
from .errors import InputDataError, Problem
from .table import Row, Table

log = logging.getLogger(__name__)

SPLITS = ("train", "dev", "alpha1", "alpha2", "alpha3")
SPLIT_FILES = {
    "train": "infotabs_train.tsv",
    "dev": "infotabs_dev.tsv",
    "alpha1": "infotabs_test_alpha1.tsv",
    "alpha2": "infotabs_test_alpha2.tsv",
    "alpha3": "infotabs_test_alpha3.tsv",
}
REQUIRED_COLUMNS = ("table_id", "hypothesis", "label")
# A table id names a file, so it must not be able to point outside the tables folder.
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MAX_PROBLEMS_SHOWN = 20


def split_tsv(root: str | Path, split: str) -> Path:
    return Path(root) / "data" / "maindata" / SPLIT_FILES[split]


def tables_dir(root: str | Path) -> Path:
    return Path(root) / "data" / "tables" / "json"


def categories_tsv(root: str | Path) -> Path:
    return Path(root) / "data" / "tables" / "table_categories.tsv"


@dataclass
class _Problems:
    """Collects problems so that one run shows all of them, not just the first."""

    items: list[Problem] = field(default_factory=list)
    count: int = 0

    def add(self, path, line, reason):
        self.count += 1
        if len(self.items) < MAX_PROBLEMS_SHOWN:
            self.items.append(Problem(str(path), line, reason))

    def raise_if_any(self, fix: str):
        if self.count:
            raise InputDataError(self.items, fix, more=self.count - len(self.items))


@dataclass(frozen=True)
class HypothesisLine:
    line: int
    cells: tuple[str, ...]  # the raw row, to tell exact duplicates from repeated pairs
    table_id: str
    hypothesis: str
    label: str


@dataclass
class IngestedSplit:
    examples: pa.Table
    tables: pa.Table
    duplicate_lines: list[tuple[int, int, str]]  # (line, first line, "exact" | "pair")
    # table cells (titles, keys, values) changed by clean_cell, by what was changed
    cleaned: dict[str, int] = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        return {
            "examples": self.examples.num_rows,
            "tables": self.tables.num_rows,
            "labels": {lab: int(sum(1 for x in self.examples["label"].to_pylist() if x == lab)) for lab in LABELS},
            "duplicates": [
                {"line": line, "first_line": first, "kind": kind} for line, first, kind in self.duplicate_lines
            ],
            "cleaned_cells": self.cleaned,
        }


def _read_text_lines(path: Path, problems: _Problems) -> list[str] | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        problems.add(path, None, "file not found")
        return None
    except OSError as err:  # a folder where a file should be, no permission, ...
        problems.add(path, None, f"cannot be read: {err.strerror or err}")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        problems.add(path, line, f"not valid UTF-8 ({err.reason} at byte {err.start})")
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line, it does not start an empty one
    return [line.removesuffix("\r") for line in lines]


def read_hypotheses(path: Path, problems: _Problems) -> list[HypothesisLine]:
    """Parse a hypothesis TSV. Lines are numbered as an editor shows them (header = 1)."""
    lines = _read_text_lines(path, problems)
    if lines is None:
        return []
    if not lines:
        problems.add(path, 1, "file is empty; expected a header line with table_id, hypothesis, label")
        return []
    header = lines[0].split("\t")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        problems.add(path, 1, f"header lacks column(s) {', '.join(missing)}; found {header}")
        return []
    if len(lines) == 1:
        # Scored over no examples, every number of the report would be blank, not wrong: a
        # split without examples is a cut-short or mis-exported file, so it stops here.
        problems.add(path, 1, "has a header but no examples below it; a split (or probe set) needs at least one "
                     "tab-separated line of table_id, hypothesis, label")
        return []
    col = {name: header.index(name) for name in REQUIRED_COLUMNS}
    out = []
    for lineno, text in enumerate(lines[1:], start=2):
        cells = text.split("\t")
        if len(cells) != len(header):
            problems.add(
                path, lineno, f"has {len(cells)} tab-separated columns, the header has {len(header)} ({', '.join(header)})"
            )
            continue
        table_id, hypothesis, label = (cells[col[c]].strip() for c in REQUIRED_COLUMNS)
        hypothesis = unescape_entities(hypothesis)
        bad = False
        if not TABLE_ID_PATTERN.match(table_id):
            problems.add(path, lineno, f"table_id {table_id!r} is not a valid table id (letters, digits, _ . -)")
            bad = True
        if not hypothesis:
            problems.add(path, lineno, "hypothesis is empty")
            bad = True
        if label not in LABELS:
            problems.add(path, lineno, f"label {label!r} is not one of E, N, C")
            bad = True
        if not bad:
            out.append(HypothesisLine(lineno, tuple(cells), table_id, hypothesis, label))
    return out


# A character reference as HTML writes it, semicolon and all ("&amp;", "&#233;", "&#x27;"): only
# these are decoded, so "R&D" or "AT&T" stay as they are.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def unescape_entities(text: str) -> str:
    """HTML character references decoded: the official tables hold 59 ("R&amp;B", "&lt; 2
    minutes") that every rendering and probe would otherwise read literally."""
    return _ENTITY.sub(lambda m: html.unescape(m.group(0)), text) if "&" in text else text


# Characters that print as nothing (zero-width spaces and joiners, word joiners, byte-order marks
# inside values): 273 in the official tables, where they split words that look whole.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\u00ad]")
# UTF-8 read as Windows-1252 ("2000â€“present" for "2000–present"): a lead byte's character
# followed by a continuation byte's.
_MOJIBAKE = re.compile("[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
                       "\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]")


def repair_mojibake(text: str) -> str:
    """UTF-8 text once decoded as Windows-1252, decoded right ("â€“" -> "–"); anything that does
    not round-trip exactly is left as it is."""
    if not _MOJIBAKE.search(text):
        return text
    try:
        return text.encode("cp1252").decode("utf-8")
    except UnicodeError:
        return text


def clean_cell(text: str, cleaned: Counter) -> str:
    """A title, key or value as the table means it: entities decoded, invisible characters
    (zero-width, bidirectional marks) dropped, mojibake repaired, runs of whitespace (double
    spaces, non-breaking spaces, line breaks) made one space, ends stripped. Counted in `cleaned`
    (the ingest summary) by what was changed."""
    decoded = unescape_entities(text)
    if decoded != text:
        cleaned["html_entities"] += 1
    visible = _INVISIBLE.sub("", decoded)
    if visible != decoded:
        cleaned["invisible_characters"] += 1
    repaired = repair_mojibake(visible)
    if repaired != visible:
        cleaned["mojibake"] += 1
        visible = repaired
    spaced = " ".join(visible.split())
    if spaced != visible.strip():
        cleaned["whitespace"] += 1
    return spaced


# What clean_cell and clean_key count, by kind (the ingest summary's `cleaned_cells`).
CLEANED_KINDS = ("html_entities", "mojibake", "invisible_characters", "whitespace", "key_colons")


def clean_key(key: str, cleaned: Counter) -> str:
    """A key as clean_cell makes it, without the colon 182 official keys end with ("TD-Int:")."""
    cell = clean_cell(key, cleaned)
    if cell.endswith(":"):
        cleaned["key_colons"] += 1
        cell = cell.rstrip(": ").strip()
    return cell


def read_table(path: Path, table_id: str, category: str | None, problems: _Problems,
               cleaned: Counter | None = None) -> Table | None:
    """Parse one InfoTabS table JSON: {"title": [t], key: [values...], ...}.

    Read as a list of pairs, not a dict: a few official tables repeat a key ("Years active")
    or have an empty one, and every row is kept, in file order. Titles, keys and values are
    cleaned (`clean_cell`), so "Density  (at STP)" and "Density (at STP)" are one key.
    """
    cleaned = Counter() if cleaned is None else cleaned
    lines = _read_text_lines(path, problems)
    if lines is None:
        return None
    try:
        pairs = json.loads("\n".join(lines), object_pairs_hook=lambda items: items)
    except json.JSONDecodeError as err:
        problems.add(path, err.lineno, f"malformed JSON: {err.msg} (column {err.colno})")
        return None
    if not isinstance(pairs, list) or any(not isinstance(item, tuple) for item in pairs):
        problems.add(path, 1, "expected a JSON object of key -> list of values")
        return None
    titles = [values for key, values in pairs if key == "title"]
    if len(titles) != 1 or not _is_single_string_list(titles[0]):
        problems.add(path, 1, f'needs one "title" holding a list with one non-empty string, found {titles!r}')
        return None
    rows = []
    for key, values in pairs:
        if key == "title":
            continue
        if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            problems.add(path, None, f"row {key!r} must map to a list of strings, found {values!r}")
            return None
        rows.append(Row(clean_key(key, cleaned), tuple(clean_cell(v, cleaned) for v in values)))
    return Table(table_id, clean_cell(titles[0][0], cleaned), tuple(rows), category)


def _is_single_string_list(value) -> bool:
    return isinstance(value, list) and len(value) == 1 and isinstance(value[0], str) and bool(value[0].strip())


def read_categories(path: Path, problems: _Problems) -> dict[str, str]:
    if not path.exists():
        return {}  # optional: a user's own set may not have categories
    lines = _read_text_lines(path, problems) or []
    if not lines:
        return {}
    header = lines[0].split("\t")
    if header[:2] != ["table_id", "category"]:
        problems.add(path, 1, f"header must start with table_id, category; found {header}")
        return {}
    categories = {}
    for lineno, text in enumerate(lines[1:], start=2):
        cells = text.split("\t")
        if len(cells) != len(header):
            problems.add(path, lineno, f"has {len(cells)} columns, the header has {len(header)}")
            continue
        categories[cells[0].strip()] = cells[1].strip()
    return categories


def find_duplicates(hypotheses: list[HypothesisLine]) -> list[tuple[int, int, str]]:
    """(line, first line it repeats, kind): "exact" repeats the whole row, "pair" the table+hypothesis."""
    first_seen: dict[tuple[str, str], HypothesisLine] = {}
    out = []
    for h in hypotheses:
        first = first_seen.setdefault((h.table_id, h.hypothesis), h)
        if first is not h:
            out.append((h.line, first.line, "exact" if first.cells == h.cells else "pair"))
    return out


def ingest_split(root: str | Path, split: str, on_duplicate: str = "warn") -> IngestedSplit:
    """Read and validate one split of an InfoTabS folder into the examples and tables contracts."""
    if split not in SPLIT_FILES:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    if on_duplicate not in ("warn", "error"):
        raise ValueError(f"on_duplicate must be 'warn' or 'error', not {on_duplicate!r}")
    root = Path(root)
    problems = _Problems()
    tsv = split_tsv(root, split)
    hypotheses = read_hypotheses(tsv, problems)
    categories = read_categories(categories_tsv(root), problems)

    tables: dict[str, Table] = {}
    cleaned: Counter = Counter()
    first_use: dict[str, int] = {}
    for h in hypotheses:
        first_use.setdefault(h.table_id, h.line)
    for table_id, line in first_use.items():
        path = tables_dir(root) / f"{table_id}.json"
        if not path.exists():
            problems.add(tsv, line, f"table {table_id} is missing: no file {path}")
            continue
        table = read_table(path, table_id, categories.get(table_id), problems, cleaned)
        if table is not None:
            tables[table_id] = table
    problems.raise_if_any(
        fix="correct the lines named above (columns are tab-separated; labels are E, N or C; "
        "every table_id needs data/tables/json/<table_id>.json), or point infotabs_dir at an intact copy"
    )

    duplicates = find_duplicates(hypotheses)
    if duplicates:
        described = "; ".join(f"line {line} repeats line {first} ({kind})" for line, first, kind in duplicates)
        if on_duplicate == "error":
            dup_problems = _Problems()
            for line, first, kind in duplicates:
                what = "the whole row" if kind == "exact" else "the table_id and hypothesis"
                dup_problems.add(tsv, line, f"duplicate: repeats {what} of line {first}")
            dup_problems.raise_if_any(
                fix="remove the repeated lines, or set `duplicates: warn` in config to keep them "
                "(the official InfoTabS data has a few)"
            )
        log.warning("%s: %d duplicate hypotheses kept (duplicates: warn): %s", tsv, len(duplicates), described)

    examples = pa.table(
        {
            "uid": [f"{split}:{h.line}" for h in hypotheses],
            "table_id": [h.table_id for h in hypotheses],
            "hypothesis": [h.hypothesis for h in hypotheses],
            "label": [h.label for h in hypotheses],
        },
        schema=schemas.EXAMPLES,
    )
    counts = {kind: cleaned[kind] for kind in CLEANED_KINDS}
    if cleaned:
        log.info("%s: cleaned table cells (titles, keys, values): %s", root,
                 ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in counts.items()))
    table_records = [tables[t].to_arrow() for t in sorted(tables, key=_table_sort_key)]
    return IngestedSplit(examples, pa.Table.from_pylist(table_records, schema=schemas.TABLES), duplicates, counts)


def _table_sort_key(table_id: str):
    """T2 before T10: numeric part first where there is one, so files read in a natural order."""
    match = re.match(r"^[A-Za-z]*(\d+)(.*)$", table_id)
    return (0, int(match.group(1)), match.group(2)) if match else (1, 0, table_id)


def load_tables(tables: pa.Table) -> dict[str, Table]:
    return {record["table_id"]: Table.from_arrow(record) for record in tables.to_pylist()}
