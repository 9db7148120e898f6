"""Reading raw TabFact (one `#`-separated file per table, one JSON file of statements per split),
validated with the file and line of every problem.

Layout of a TabFact folder (the upstream repository, or ../shared/tabfact, whose README.md this
follows):

    data/all_csv/{table_id}                      table_id = "2-11545282-3.html.csv"
    data/table_to_page.json                      table id -> [caption, Wikipedia URL] (optional)
    data/{train,val,test}_id.json                the table ids of each split
    data/{simple,complex,small}_test_id.json     test-table subsets
    tokenized_data/{train,val,test}_examples.json   table id -> [statements, labels, caption]
    bootstrap/bootstrap.json                     table id -> [[statement, null, caption, null, program], ...]

Bad input stops with every problem's file, line and reason. Two things are repaired and counted
instead, because the official files have them: header cells that are empty or repeat a name
(`name_header`), and statements repeated within a table (kept; `find_duplicates`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tabprobe.data.relational.table import NO_CAPTION, RelationalTable
from tabprobe.errors import InputDataError, Problem
from tabprobe.io import sha256_file

STATEMENT_SPLITS = ("train", "val", "test")
# Test-table subsets: the test statements of the tables listed in data/{subset}_id.json.
TEST_SUBSETS = ("simple_test", "complex_test", "small_test")
# The bootstrap.json statements of val and test tables with a program that holds on their table.
BOOTSTRAP = "bootstrap"
BOOTSTRAP_SPLITS = ("val", "test")
SPLITS = (*STATEMENT_SPLITS, *TEST_SUBSETS, BOOTSTRAP)
# A table id names a file, so it must not be able to point outside the tables folder.
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MAX_PROBLEMS_SHOWN = 20
CLEANED_KINDS = ("empty_header_cells", "repeated_header_names")
# The name an empty header cell gets (name_header); the executor resolves a program's empty column
# name to it (programs.resolve_column).
EMPTY_HEADER_NAME = "column {position}"
EMPTY_HEADER_NAME_PATTERN = re.compile(r"column \d+")

# Only CR and LF end a line: str.splitlines would also split a cell at \x0b, \x1c or U+2028.
_LINE_END = re.compile(r"\r\n|\n|\r")


def tables_dir(root: str | Path) -> Path:
    return Path(root) / "data" / "all_csv"


def statements_json(root: str | Path, split: str) -> Path:
    return Path(root) / "tokenized_data" / f"{split}_examples.json"


def split_ids_json(root: str | Path, split: str) -> Path:
    """data/{split}_id.json: train, val, test or a test subset (simple_test, ...)."""
    return Path(root) / "data" / f"{split}_id.json"


def captions_json(root: str | Path) -> Path:
    return Path(root) / "data" / "table_to_page.json"


def bootstrap_json(root: str | Path) -> Path:
    return Path(root) / "bootstrap" / "bootstrap.json"


def raise_if_any(problems: list[Problem], fix: str) -> None:
    """One error listing every problem (up to a limit), so that one edit fixes them all."""
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        raise InputDataError(shown, fix, more=len(problems) - len(shown))


def read_text(path: Path, problems: list[Problem]) -> str | None:
    """A file's text: UTF-8 (a byte-order mark dropped, as an editor may add one); None, with a
    problem, when it is missing or not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        why = "file not found" if isinstance(err, FileNotFoundError) else f"cannot be read: {err.strerror or err}"
        problems.append(Problem(str(path), None, why))
        return None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        problems.append(
            Problem(str(path), line, f"not valid UTF-8 ({err.reason} at byte {err.start}); save it as UTF-8")
        )
        return None


def read_json(path: Path, problems: list[Problem]):
    """A JSON file's value; None, with a problem naming the line, when it cannot be read."""
    text = read_text(path, problems)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        problems.append(Problem(str(path), err.lineno, f"malformed JSON: {err.msg} (column {err.colno})"))
        return None


def name_header(cells: list[str], cleaned: Counter) -> tuple[str, ...]:
    """The header with every column reachable by a name of its own.

    The executor and the probes find a column by its name, and the renderings write it: an empty
    header cell (130 official tables have one) would render as " is 12" and leave a probe's edit
    nothing to say, so it becomes "column {n}" (n counted from 1); a repeated name (7 tables, e.g. two
    "number of votes") would leave every column after the first unreachable, so the second becomes
    "number of votes (2)". Each change is counted in `cleaned`. (A program names an empty column by
    the empty text, `hop{...; }`: programs.resolve_column finds it under its new name.)"""
    named = []
    for position, cell in enumerate(cells, start=1):
        if cell.strip():
            named.append(cell)
        else:
            named.append(EMPTY_HEADER_NAME.format(position=position))
            cleaned["empty_header_cells"] += 1
    reserved = set(named)  # a new name must not take one that a later column already has
    out: list[str] = []
    for name in named:
        unique, copy = name, 1
        while unique in out or (unique != name and unique in reserved):
            copy += 1
            unique = f"{name} ({copy})"
        if unique != name:
            cleaned["repeated_header_names"] += 1
        out.append(unique)
    return tuple(out)


def read_table(
    path: str | Path,
    table_id: str | None = None,
    title: str = NO_CAPTION,
    problems: list[Problem] | None = None,
    cleaned: Counter | None = None,
) -> RelationalTable | None:
    """One table file (data/all_csv/{table_id}): UTF-8, the header on the first line, fields separated
    by `#` with no quoting, lines ending in CRLF, LF or a mix. Cells are kept as written (already
    lower-cased and tokenised); empty lines are skipped. Header names are made distinct (name_header).

    With `problems`, a table that is ragged, empty or unreadable adds its problems there and gives
    None; without, it raises InputDataError."""
    path = Path(path)
    table_id = path.name if table_id is None else table_id
    own = problems is None
    problems = [] if own else problems
    cleaned = Counter() if cleaned is None else cleaned
    found = len(problems)
    table = _parse_table(path, table_id, title, problems, cleaned)
    if own:
        raise_if_any(problems, fix="correct the lines named above (one record per line, fields separated by #)")
    return table if len(problems) == found else None


def _parse_table(
    path: Path, table_id: str, title: str, problems: list[Problem], cleaned: Counter
) -> RelationalTable | None:
    text = read_text(path, problems)
    if text is None:
        return None
    lines = [(number, line) for number, line in enumerate(_LINE_END.split(text), start=1) if line]
    if not lines:
        problems.append(Problem(str(path), None, "the file is empty; a table needs a header line and records"))
        return None
    (header_number, header_line), *record_lines = lines
    header = header_line.split("#")
    if not record_lines:
        problems.append(Problem(str(path), header_number, "the table has a header but no records below it"))
        return None
    records = []
    for number, line in record_lines:
        cells = line.split("#")
        if len(cells) != len(header):
            problems.append(
                Problem(
                    str(path),
                    number,
                    f"a ragged record: {len(cells)} #-separated fields where the header (line {header_number}) "
                    f"has {len(header)}",
                )
            )
            continue
        records.append(tuple(cells))
    if len(records) != len(record_lines):
        return None
    return RelationalTable(table_id, title, name_header(header, cleaned), tuple(records))


@dataclass(frozen=True)
class TableStatements:
    """One entry of a statements file: a table's statements, their labels (1 entailed, 0 refuted) and
    its caption."""

    table_id: str
    statements: tuple[str, ...]
    labels: tuple[int, ...]
    caption: str | None


def key_line(text: str, key: str) -> int | None:
    """The line a JSON object's key stands on (None where it is not found), to name it in a problem.
    A search of the whole text: called only for a problem, never per entry."""
    for spelling in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        found = re.search(re.escape(spelling) + r"\s*:", text)
        if found:
            return text.count("\n", 0, found.start()) + 1
    return None


def add_entry_problem(problems: list[Problem], path: Path, table_id: str, reason: str) -> None:
    """A problem with one table's entry of a JSON file, at its key's line. The line is looked up (a
    read and a search of the whole file) only for the problems that will be shown."""
    shown = len(problems) < MAX_PROBLEMS_SHOWN
    line = key_line(path.read_text(encoding="utf-8", errors="replace"), table_id) if shown else None
    problems.append(Problem(str(path), line, f"table {table_id!r}: {reason}"))


def read_statements(path: Path, problems: list[Problem], refused: set[str] | None = None) -> list[TableStatements]:
    """A statements file (tokenized_data/{split}_examples.json): table id -> [statements, labels,
    caption], checked: two lists of equal length, labels 0 or 1, statements non-empty strings.
    The table ids of the entries refused (each a problem) are added to `refused`."""
    text = read_text(path, problems)
    if text is None:
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        problems.append(Problem(str(path), err.lineno, f"malformed JSON: {err.msg} (column {err.colno})"))
        return []
    if not isinstance(data, dict) or not data:
        problems.append(
            Problem(str(path), 1, "expected a non-empty JSON object: table id -> [statements, labels, caption]")
        )
        return []
    out = []
    for table_id, entry in data.items():
        why = _entry_problem(table_id, entry)
        if why:
            add_entry_problem(problems, path, table_id, why)
            if refused is not None:
                refused.add(table_id)
            continue
        caption = entry[2] if len(entry) > 2 and isinstance(entry[2], str) and entry[2].strip() else None
        out.append(TableStatements(table_id, tuple(entry[0]), tuple(entry[1]), caption))
    return out


def _entry_problem(table_id: str, entry) -> str | None:
    """What is wrong with one statements-file entry, or None."""
    if not TABLE_ID_PATTERN.match(table_id):
        return "not a valid table id (letters, digits, _ . -; it names a file in data/all_csv/)"
    if not isinstance(entry, list) or len(entry) < 2 or not all(isinstance(part, list) for part in entry[:2]):
        return "expected [statements, labels, caption] (two lists and a string)"
    statements, labels = entry[0], entry[1]
    if len(statements) != len(labels):
        return f"{len(statements)} statements but {len(labels)} labels; each statement needs one label"
    if not statements:
        return "no statements"
    bad = [i for i, s in enumerate(statements) if not isinstance(s, str) or not s.strip()]
    if bad:
        return f"statement {bad[0]} (counted from 0) is not a non-empty string"
    # bool is an int in Python: `true` in the file is refused, not read as 1.
    bad = [i for i, label in enumerate(labels) if type(label) is not int or label not in (0, 1)]
    if bad:
        return f"label {bad[0]} (counted from 0) is {labels[bad[0]]!r}; labels are 1 (entailed) or 0 (refuted)"
    return None


@dataclass(frozen=True)
class Duplicate:
    """A statement that repeats an earlier one of the same table (indices into its list)."""

    table_id: str
    index: int
    first_index: int
    both_labels: bool  # the repeated string carries both labels within the table


def find_duplicates(entries: list[TableStatements]) -> list[Duplicate]:
    out = []
    for entry in entries:
        first: dict[str, int] = {}
        labels: dict[str, set[int]] = {}
        for index, (statement, label) in enumerate(zip(entry.statements, entry.labels)):
            first.setdefault(statement, index)
            labels.setdefault(statement, set()).add(label)
        for index, statement in enumerate(entry.statements):
            if first[statement] != index:
                out.append(Duplicate(entry.table_id, index, first[statement], len(labels[statement]) > 1))
    return out


def read_captions(root: str | Path, problems: list[Problem]) -> dict[str, str]:
    """table id -> caption, from data/table_to_page.json ({} where the file is absent: the
    statements files carry a caption too)."""
    path = captions_json(root)
    if not path.exists():
        return {}
    data = read_json(path, problems)
    if not isinstance(data, dict):
        if data is not None:
            problems.append(Problem(str(path), 1, "expected a JSON object: table id -> [caption, URL]"))
        return {}
    return {
        table_id: entry[0]
        for table_id, entry in data.items()
        if isinstance(entry, list) and entry and isinstance(entry[0], str) and entry[0].strip()
    }


def read_table_ids(path: Path, problems: list[Problem]) -> list[str]:
    """A JSON list of table ids (data/*_id.json)."""
    data = read_json(path, problems)
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(table_id, str) for table_id in data):
        problems.append(Problem(str(path), 1, "expected a JSON list of table ids"))
        return []
    return data


def load_tables(tables) -> dict[str, RelationalTable]:
    """table id -> table, from a file of relational.RELATIONAL_TABLES (an ingested split's tables)."""
    return {record["table_id"]: RelationalTable.from_arrow(record) for record in tables.to_pylist()}


def copy_digest(root: str | Path) -> str:
    """What a TabFact copy holds, by content: every table, statements, ids, captions and programs
    file (name and sha256, sorted). The rules hand it to ingest_tabfact, so that a moved or
    differently spelled copy re-runs nothing while an edited table or statement (even one edited
    in place) re-ingests TabFact. About a second for the 16,573 tables."""
    root = Path(root)
    files = sorted(
        [*tables_dir(root).iterdir(), *(root / "tokenized_data").glob("*.json"), *(root / "data").glob("*.json")]
        + [bootstrap_json(root)]
    )
    digest = hashlib.sha256()
    for path in files:
        if path.is_file():
            digest.update(f"{path.relative_to(root)}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


_DIGESTS: dict[str, str] = {}


def digest(config, split: str) -> str:
    """What the copy the workflow reads holds (copy_digest, taken once per process), for the ingest's
    params: the same for every split, since each reads the tables and programs of the whole copy."""
    root = config["tabfact_dir"]
    if root not in _DIGESTS:
        _DIGESTS[root] = copy_digest(root)
    return _DIGESTS[root]
