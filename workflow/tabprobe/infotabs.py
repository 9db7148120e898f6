"""Reading raw InfoTabS (TSV of hypotheses + one JSON file per table), validated line by line.

Layout of an InfoTabS folder (the official repository, or a user's set in the same format):

    data/maindata/infotabs_{train,dev,test_alpha1,test_alpha2,test_alpha3}.tsv
    data/tables/json/{table_id}.json
    data/tables/table_categories.tsv          (optional: table_id, category)

Bad input stops with every problem's file, line and reason. Duplicates are the exception:
the official data has some, so by default they are kept and reported as a warning.
"""

from __future__ import annotations

import csv
import errno
import html
import io
import json
import logging
import os
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
    extra: dict[str, str] = field(default_factory=dict, compare=False)  # columns beyond the three, by name


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


def _missing_or_unreadable(path: Path, err: OSError | None = None) -> str:
    """Why a file cannot be read, in words that point at the fix."""
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except RuntimeError:
            return "is a symbolic link that loops (it points to itself, or through other links back to itself)"
        except OSError:
            return f"is a symbolic link to {os.readlink(path)}, which does not exist"
    if err is None or isinstance(err, FileNotFoundError):
        return "file not found"
    if err.errno == errno.ELOOP:
        return "is a symbolic link that loops (it points to itself, or through other links back to itself)"
    return f"cannot be read: {err.strerror or err}"  # a folder where a file should be, no permission, ...


def _read_text(path: Path, problems: _Problems) -> str | None:
    """The file's text as its author meant it: UTF-8, a byte-order mark dropped, line ends made
    "\n" whether written as "\r\n", "\r\r\n" (a CRLF file converted twice) or "\r" alone."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        problems.add(path, None, _missing_or_unreadable(path, err))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        problems.add(
            path,
            line,
            f"not valid UTF-8 ({err.reason} at byte {err.start}); save it as UTF-8, e.g. "
            f"`iconv -f cp1252 -t utf-8 {path.name} > {path.stem}.utf8{path.suffix}` for a file written "
            "as Windows-1252 (Excel's 'Unicode Text' is UTF-16: use -f utf-16)",
        )
        return None
    return _LINE_END.sub("\n", text.removeprefix("\ufeff"))


_LINE_END = re.compile(r"\r*\n|\r")


def read_tsv(path: Path, problems: _Problems) -> tuple[list[str], list[tuple[int, list[str]]]] | None:
    """(header, [(line, cells), ...]) of a tab-separated file written with CSV quoting, as the
    official InfoTabS files are: a field that starts with a double quote runs to its closing
    quote, holds tabs and line breaks, and writes a quote as two (`"He said ""yes"" twice"`). Lines are
    numbered as an editor shows them (header = 1), a record by the line it starts on; blank lines
    are skipped. None when the file cannot be read or is malformed (the problems say where)."""
    text = _read_text(path, problems)
    if text is None:
        return None
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter="\t", quotechar='"', doublequote=True, strict=True, lineterminator="\n"
    )
    records, start = [], 1
    try:
        for cells in reader:
            if any(cell.strip() for cell in cells):
                records.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as err:
        problems.add(
            path,
            start,
            f"malformed quoting ({err}): a field that starts with a double quote must end "
            'with one, and a quote inside it is written twice (""); quote the whole field or remove the '
            "leading quote",
        )
        return None
    if not records:
        return [], []
    (_, header), *rows = records
    return [name.strip() for name in header], rows


def read_hypotheses(path: Path, problems: _Problems) -> list[HypothesisLine]:
    """Parse a hypothesis TSV (CSV-quoted fields unquoted, see read_tsv)."""
    parsed = read_tsv(path, problems)
    if parsed is None:
        return []
    header, rows = parsed
    if not header:
        problems.add(path, 1, "file is empty; expected a header line with table_id, hypothesis, label")
        return []
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        problems.add(path, 1, f"header lacks column(s) {', '.join(missing)}; found {header}")
        return []
    if not rows:
        # Scored over no examples, every number of the report would be blank, not wrong: a
        # split without examples is a cut-short or mis-exported file, so it stops here.
        problems.add(
            path,
            1,
            "has a header but no examples below it; a split (or probe set) needs at least one "
            "tab-separated line of table_id, hypothesis, label",
        )
        return []
    out = []
    for lineno, cells in rows:
        if len(cells) != len(header):
            problems.add(
                path,
                lineno,
                f"has {len(cells)} tab-separated columns, the header has {len(header)} ({', '.join(header)})",
            )
            continue
        columns = dict(zip(header, cells))
        table_id, label = columns["table_id"].strip(), columns["label"].strip()
        # A quoted hypothesis may run over lines: one sentence, so one space.
        hypothesis = " ".join(unescape_entities(columns["hypothesis"]).split())
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
            extra = {name: value for name, value in columns.items() if name not in REQUIRED_COLUMNS}
            out.append(HypothesisLine(lineno, tuple(cells), table_id, hypothesis, label, extra))
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
_MOJIBAKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)


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
CLEANED_KINDS = ("html_entities", "mojibake", "invisible_characters", "whitespace", "key_colons", "string_values")


def clean_key(key: str, cleaned: Counter) -> str:
    """A key as clean_cell makes it, without the colon 182 official keys end with ("TD-Int:")."""
    cell = clean_cell(key, cleaned)
    if cell.endswith(":"):
        cleaned["key_colons"] += 1
        cell = cell.rstrip(": ").strip()
    return cell


def read_table(
    path: Path, table_id: str, category: str | None, problems: _Problems, cleaned: Counter | None = None
) -> Table | None:
    """Parse one InfoTabS table JSON: {"title": [t], key: [values...], ...}.

    Read as a list of pairs, not a dict: a few official tables repeat a key ("Years active")
    or have an empty one, and every row is kept, in file order. Titles, keys and values are
    cleaned (`clean_cell`), so "Density  (at STP)" and "Density (at STP)" are one key.
    """
    cleaned = Counter() if cleaned is None else cleaned
    text = _read_text(path, problems)
    if text is None:
        return None
    try:
        pairs = json.loads(text, object_pairs_hook=lambda items: items)
    except json.JSONDecodeError as err:
        problems.add(path, err.lineno, f"malformed JSON: {err.msg} (column {err.colno})")
        return None
    if not isinstance(pairs, list) or any(not isinstance(item, tuple) for item in pairs):
        problems.add(path, 1, "expected a JSON object of key -> list of values")
        return None
    lines = _key_lines(text, [key for key, _ in pairs])
    # A lone string is one value: hand-made and scraped tables write {"Religion": "Islam"}.
    cleaned["string_values"] += sum(1 for key, values in pairs if isinstance(values, str) and key != "title")
    pairs = [(key, [values] if isinstance(values, str) else values) for key, values in pairs]
    titles = [(line, values) for line, (key, values) in zip(lines, pairs) if key == "title"]
    if len(titles) != 1 or not _is_single_string_list(titles[0][1]):
        problems.add(
            path,
            titles[-1][0] if titles else 1,
            f'needs one "title" holding one non-empty string, found {[values for _, values in titles]!r}',
        )
        return None
    rows = []
    for line, (key, values) in zip(lines, pairs):
        if key == "title":
            continue
        if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            problems.add(path, line, f"row {key!r} must map to a string or a list of strings, found {values!r}")
            return None
        rows.append(Row(clean_key(key, cleaned), tuple(clean_cell(v, cleaned) for v in values)))
    return Table(table_id, clean_cell(titles[0][1][0], cleaned), tuple(rows), category)


def _key_lines(text: str, keys: list[str]) -> list[int | None]:
    """The line of each top-level key of a JSON object, in order (None where it cannot be found),
    so an error about a row names the line to fix."""
    lines, position = [], 0
    for key in keys:
        found = None
        for spelling in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
            found = re.compile(re.escape(spelling) + r"\s*:").search(text, position)
            if found:
                break
        if found:
            position = found.end()
            lines.append(text.count("\n", 0, found.start()) + 1)
        else:
            lines.append(None)
    return lines


def _is_single_string_list(value) -> bool:
    return isinstance(value, list) and len(value) == 1 and isinstance(value[0], str) and bool(value[0].strip())


def read_categories(path: Path, problems: _Problems) -> dict[str, str]:
    if not path.exists():
        return {}  # optional: a user's own set may not have categories
    parsed = read_tsv(path, problems)
    if not parsed or not parsed[0]:
        return {}
    header, rows = parsed
    if header[:2] != ["table_id", "category"]:
        problems.add(path, 1, f"header must start with table_id, category; found {header}")
        return {}
    categories = {}
    for lineno, cells in rows:
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
        if not path.exists() and not path.is_symlink():  # a broken link is read, to say why it fails
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
        log.info(
            "%s: cleaned table cells (titles, keys, values): %s",
            root,
            ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in counts.items()),
        )
    table_records = [tables[t].to_arrow() for t in sorted(tables, key=_table_sort_key)]
    return IngestedSplit(examples, pa.Table.from_pylist(table_records, schema=schemas.TABLES), duplicates, counts)


def _table_sort_key(table_id: str):
    """T2 before T10: numeric part first where there is one, so files read in a natural order."""
    match = re.match(r"^[A-Za-z]*(\d+)(.*)$", table_id)
    return (0, int(match.group(1)), match.group(2)) if match else (1, 0, table_id)


def load_tables(tables: pa.Table) -> dict[str, Table]:
    return {record["table_id"]: Table.from_arrow(record) for record in tables.to_pylist()}
