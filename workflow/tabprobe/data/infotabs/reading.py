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
import io
import json
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from tabprobe import LABELS
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.infotabs.cleaning import clean_cell, clean_key, unescape_entities
from tabprobe.errors import InputDataError, Problem

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


def _table_sort_key(table_id: str):
    """T2 before T10: numeric part first where there is one, so files read in a natural order."""
    match = re.match(r"^[A-Za-z]*(\d+)(.*)$", table_id)
    return (0, int(match.group(1)), match.group(2)) if match else (1, 0, table_id)


def load_tables(tables: pa.Table) -> dict[str, Table]:
    return {record["table_id"]: Table.from_arrow(record) for record in tables.to_pylist()}
