"""Parse and execute TabFact's logical-form programs over a relational table, and say what they read.

A program (bootstrap/bootstrap.json of TabFact, the Logic2Text grammar) is a nested call such as
`eq{count{filter_eq{filter_greater{all_rows; total; 30}; style; jive}}; 2}=True`: a function name, then its
arguments in braces separated by `;`. An argument is a call or a literal: `all_rows`, a column name, or a
value that may hold spaces, commas, parentheses and hyphens. The `=True` / `=False` suffix is the value the
annotator expects.

The executor was written from the function names, the programs and the tables, not from TabFact's code.
Row sets are tuples of record indices, so `execute` can report the evidence a program touched: the records
whose cells decided its result and the columns it named. That evidence is the "relevant cells" of a
record-deletion probe, and re-executing the program on an edited table recomputes the statement's label.
What a cell or literal means (numbers, dates, fuzzy matches) lives in program_values.py.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tabprobe.data.tabfact import program_values as values
from tabprobe.data.tabfact.program_values import MISSING, Value
from tabprobe.data.tabfact.reading import EMPTY_HEADER_NAME_PATTERN

RowSet = tuple[int, ...]


class ProgramError(ValueError):
    """A program that cannot be executed; the subclasses say why."""


class ProgramSyntaxError(ProgramError):
    """The text is not a well-formed program; the message says where it broke."""


class UnknownFunctionError(ProgramError):
    """A function name outside the grammar this executor knows."""


class ProgramValueError(ProgramError):
    """A well-formed program that does not fit the table: a column that is not there, a row set where a
    value belongs, a result that is not True or False."""


@dataclass(frozen=True)
class Literal:
    text: str
    position: int


@dataclass(frozen=True)
class Call:
    function: str
    arguments: tuple[Node, ...]
    position: int


Node = Literal | Call

_EXPECTED_SUFFIX = re.compile(r"=\s*(True|False)\s*$")
_FUNCTION_NAME = re.compile(r"[a-z_]+")


def split_expected(program: str) -> tuple[str, bool | None]:
    """The program's body and the value after `=` (True or False), None when it has no suffix."""
    match = _EXPECTED_SUFFIX.search(program)
    if match is None:
        return program, None
    return program[: match.start()], match.group(1) == "True"


def parse(program: str) -> Node:
    """The program's tree, without its `=True` / `=False` suffix (see split_expected)."""
    body, _ = split_expected(program)
    parser = _Parser(body)
    node = parser.node()
    parser.skip_space()
    if parser.position != len(body):
        parser.fail("text after the end of the program")
    return node


class _Parser:
    """Recursive descent over `name{argument; argument; ...}`; a literal runs to the next `;`, `{` or `}`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def fail(self, problem: str) -> None:
        shown = self.text[max(0, self.position - 30) : self.position + 30]
        raise ProgramSyntaxError(f"{problem} at character {self.position} (near {shown!r}) in program {self.text!r}")

    def skip_space(self) -> None:
        while self.position < len(self.text) and self.text[self.position].isspace():
            self.position += 1

    def node(self) -> Node:
        self.skip_space()
        start = self.position
        while self.position < len(self.text) and self.text[self.position] not in "{};":
            self.position += 1
        word = self.text[start : self.position].strip()
        if self.position < len(self.text) and self.text[self.position] == "{":
            if not _FUNCTION_NAME.fullmatch(word):
                self.position = start
                self.fail(f"a function name is expected before '{{', not {word!r}")
            self.position += 1
            return Call(word, self.arguments(), start)
        # An empty literal is allowed: 130 tables have an empty header cell, and programs name that column
        # with nothing (`hop{filter_less{all_rows; runs; 3000}; }`).
        return Literal(word, start)

    def arguments(self) -> tuple[Node, ...]:
        found = [self.node()]
        while self.position < len(self.text) and self.text[self.position] == ";":
            self.position += 1
            found.append(self.node())
        if self.position >= len(self.text) or self.text[self.position] != "}":
            self.fail("'}' or ';' is expected")
        self.position += 1
        return tuple(found)


def resolve_column(header: Sequence[str], name: str) -> int:
    """The index of the column a program names. Programs write the header's text but not always exactly
    (`tonnage ( grt )` for `tonnage (grt)`, a dropped word), so the match loosens step by step: the same
    tokens, the same characters without spaces and punctuation, then the one closest header name. A
    repeated header name resolves to its first column. An empty name (`hop{...; }`) is a column whose
    header cell is empty in the file: reading.name_header has named it "column {n}"."""
    wanted = values.tokens(name)
    for index, column in enumerate(header):
        if values.tokens(column) == wanted:
            return index
    if not wanted:
        for index, column in enumerate(header):
            if EMPTY_HEADER_NAME_PATTERN.fullmatch(column):
                return index
    squeezed = re.sub(r"\W", "", name.lower())
    for index, column in enumerate(header):
        if re.sub(r"\W", "", column.lower()) == squeezed:
            return index
    spelled = [" ".join(values.tokens(column)) for column in header]
    close = difflib.get_close_matches(" ".join(wanted), spelled, n=1, cutoff=0.75)
    if close:
        return spelled.index(close[0])
    raise ProgramValueError(f"no column {name!r} in the table; its header is {list(header)}")


@dataclass
class _Run:
    """One evaluation: the table, and what the program has read so far (see Outcome)."""

    header: Sequence[str]
    records: Sequence[Sequence[str]]
    consumed_records: set[int] = field(default_factory=set)
    consumed_cells: set[tuple[int, int]] = field(default_factory=set)
    filter_marks: list[tuple[RowSet, int]] = field(default_factory=list)
    columns_named: set[int] = field(default_factory=set)

    def cell(self, record: int, column: int) -> str:
        return self.records[record][column]

    def is_summary(self, record: int) -> bool:
        """A `total` / `totals` record sums the others: it is no candidate for the largest, summing or counting
        it would count everything twice, and all_eq does not test it (`eq{hop{argmax{all_rows; gains}; party};
        wildrose}` over a table whose last record is `total | 28`; `all_eq{all_rows; national team; brazil}`
        over a `total | total | ...` line). Filters and hop still see it, so a program may name it."""
        return any(cell.strip() in ("total", "totals") for cell in self.records[record])

    def read(self, rows: RowSet, column: int | None = None) -> None:
        """The rows (and their cells in a column) that a function other than a filter computed from."""
        self.consumed_records.update(rows)
        if column is not None:
            self.consumed_cells.update((record, column) for record in rows)

    def evaluate(self, node: Node, kind: str = "any") -> object:
        if isinstance(node, Literal):
            return self.literal(node, kind)
        function = FUNCTIONS.get(node.function)
        if function is None:
            raise UnknownFunctionError(
                f"unknown function {node.function!r} at character {node.position}; known: {sorted(FUNCTIONS)}"
            )
        kinds, implementation = function
        if len(node.arguments) != len(kinds):
            raise ProgramValueError(
                f"{node.function} takes {len(kinds)} arguments ({', '.join(kinds)}), "
                f"got {len(node.arguments)} at character {node.position}"
            )
        arguments = [self.evaluate(argument, kind) for argument, kind in zip(node.arguments, kinds)]
        result = implementation(self, *arguments)
        return self.checked(result, kind, node)

    def literal(self, node: Literal, kind: str) -> object:
        if kind == "column":
            column = resolve_column(self.header, node.text)
            self.columns_named.add(column)
            return column
        if node.text == "all_rows":
            return self.checked(tuple(range(len(self.records))), kind, node)
        return self.checked(node.text, kind, node)

    @staticmethod
    def checked(result: object, kind: str, node: Node) -> object:
        is_rows = isinstance(result, tuple)
        wrong = (
            (kind == "rows" and not is_rows)
            or (kind == "value" and (is_rows or isinstance(result, bool)))
            or (kind == "bool" and not isinstance(result, bool))
        )
        if wrong:
            what = node.function if isinstance(node, Call) else repr(node.text)
            raise ProgramValueError(f"{what} at character {node.position} gives {result!r} where a {kind} belongs")
        return result


def _filter(test: Callable[[Value, Value], bool]) -> Callable[[_Run, RowSet, int, Value], RowSet]:
    def keep_matching(run: _Run, rows: RowSet, column: int, value: Value) -> RowSet:
        kept = tuple(record for record in rows if test(run.cell(record, column), value))
        run.filter_marks.append((kept, column))
        return kept

    return keep_matching


def _every(test: Callable[[Value, Value], bool], share: float) -> Callable[[_Run, RowSet, int, Value], bool]:
    """all_* (share 1) and most_* (share one half, strictly more): an empty row set is False, because
    the statement presumes the records exist."""

    def holds_for_enough(run: _Run, rows: RowSet, column: int, value: Value) -> bool:
        run.read(rows, column)
        rows = tuple(record for record in rows if not run.is_summary(record))
        passing = sum(test(run.cell(record, column), value) for record in rows)
        return bool(rows) and (passing == len(rows) if share == 1 else passing > share * len(rows))

    return holds_for_enough


def _nth_ranked(run: _Run, rows: RowSet, column: int, nth: Value, largest: bool) -> RowSet:
    """The record holding the nth largest (or smallest) cell; ties keep table order, and cells that do not
    rank (`-` among numbers) are left out. An empty row set when there are fewer than n."""
    run.read(rows, column)
    rows = tuple(record for record in rows if not run.is_summary(record))
    keys = values.ranking_keys([run.cell(record, column) for record in rows])
    ranked = [(key, position) for position, key in enumerate(keys) if key is not None]
    ranked.sort(key=lambda pair: pair[0], reverse=largest)  # stable both ways: ties keep table order
    place = int(values.parse_number(nth) or 0) if isinstance(nth, str) else int(nth)
    return (rows[ranked[place - 1][1]],) if 1 <= place <= len(ranked) else ()


def _count(run: _Run, rows: RowSet) -> int:
    run.read(rows)
    return sum(not run.is_summary(record) for record in rows)


def _only(run: _Run, rows: RowSet) -> bool:
    run.read(rows)
    return len(rows) == 1


def _hop(run: _Run, rows: RowSet, column: int) -> Value:
    """The cell of a row set in a column. A row set of several records gives its first: programs hop from a
    filter that the statement meant to pick one record, and the tables repeat a name now and then (two
    games against one team); MISSING when the set is empty."""
    if not rows:
        return MISSING
    run.read(rows[:1], column)
    return run.cell(rows[0], column)


def _aggregate(run: _Run, rows: RowSet, column: int, mean: bool) -> Value:
    """sum and avg over the cells that have a number (a `-` cell is no data, not zero)."""
    run.read(rows, column)
    numbers = [values.number_of(run.cell(record, column)) for record in rows if not run.is_summary(record)]
    present = [number for number in numbers if number is not None]
    if mean:
        return sum(present) / len(present) if present else MISSING
    return sum(present)


def _round_eq(left: Value, right: Value) -> bool:
    """round_eq: numbers within 5 % of each other (`about 20000`), else the same as eq."""
    pair = values.comparable_pair(left, right)
    if pair and all(isinstance(side, int | float) for side in pair):
        return abs(pair[0] - pair[1]) <= 0.05 * max(abs(pair[0]), abs(pair[1]))
    return values.values_equal(left, right)


def _greater_eq(left: Value, right: Value) -> bool:
    return values.greater(left, right) or values.values_equal(left, right)


def _less_eq(left: Value, right: Value) -> bool:
    return values.less(left, right) or values.values_equal(left, right)


def _not_equal(left: Value, right: Value) -> bool:
    """not_eq is False, not True, when a side is missing: a statement about an absent record is refuted."""
    return MISSING not in (left, right) and not values.values_equal(left, right)


def _not_string_equal(left: Value, right: Value) -> bool:
    return MISSING not in (left, right) and not values.strings_equal(left, right)


def _ranked_cell(largest: bool) -> Callable[..., Value]:
    """max / min (place 1) and nth_max / nth_min: the cell itself, as written, so that eq compares it with
    what the annotator typed (`eq{max{all_rows; away}; 2 - 0}`). FUNCTIONS fixes which take a place."""

    def cell_at_rank(run: _Run, rows: RowSet, column: int, place: Value = "1") -> Value:
        return _hop(run, _nth_ranked(run, rows, column, place, largest), column)

    return cell_at_rank


def _ranked_row(largest: bool) -> Callable[..., RowSet]:
    """argmax / argmin (place 1) and nth_argmax / nth_argmin: a row set of the one record."""
    return lambda run, rows, column, place="1": _nth_ranked(run, rows, column, place, largest)


_COMPARISONS: dict[str, Callable[[Value, Value], bool]] = {
    "eq": values.values_equal,
    "not_eq": _not_equal,
    "greater": values.greater,
    "less": values.less,
    "greater_eq": _greater_eq,
    "less_eq": _less_eq,
}
_ROWS_COLUMN = ("rows", "column")
_ROWS_COLUMN_VALUE = ("rows", "column", "value")
_TWO_VALUES = ("value", "value")

FUNCTIONS: dict[str, tuple[tuple[str, ...], Callable[..., object]]] = {
    **{f"filter_{name}": (_ROWS_COLUMN_VALUE, _filter(test)) for name, test in _COMPARISONS.items()},
    **{f"all_{name}": (_ROWS_COLUMN_VALUE, _every(test, 1)) for name, test in _COMPARISONS.items()},
    **{f"most_{name}": (_ROWS_COLUMN_VALUE, _every(test, 0.5)) for name, test in _COMPARISONS.items()},
    **{
        name: (_TWO_VALUES, lambda run, left, right, test=test: test(left, right))
        for name, test in _COMPARISONS.items()
    },
    "filter_all": (_ROWS_COLUMN, lambda run, rows, column: rows),
    "round_eq": (_TWO_VALUES, lambda run, left, right: _round_eq(left, right)),
    "str_eq": (_TWO_VALUES, lambda run, left, right: values.strings_equal(left, right)),
    "not_str_eq": (_TWO_VALUES, lambda run, left, right: _not_string_equal(left, right)),
    "diff": (_TWO_VALUES, lambda run, left, right: values.difference(left, right)),
    "and": (("bool", "bool"), lambda run, left, right: left and right),
    "count": (("rows",), _count),
    "only": (("rows",), _only),
    "hop": (_ROWS_COLUMN, _hop),
    "sum": (_ROWS_COLUMN, lambda run, rows, column: _aggregate(run, rows, column, mean=False)),
    "avg": (_ROWS_COLUMN, lambda run, rows, column: _aggregate(run, rows, column, mean=True)),
    "argmax": (_ROWS_COLUMN, _ranked_row(largest=True)),
    "argmin": (_ROWS_COLUMN, _ranked_row(largest=False)),
    "nth_argmax": (_ROWS_COLUMN_VALUE, _ranked_row(largest=True)),
    "nth_argmin": (_ROWS_COLUMN_VALUE, _ranked_row(largest=False)),
    "max": (_ROWS_COLUMN, _ranked_cell(largest=True)),
    "min": (_ROWS_COLUMN, _ranked_cell(largest=False)),
    "nth_max": (_ROWS_COLUMN_VALUE, _ranked_cell(largest=True)),
    "nth_min": (_ROWS_COLUMN_VALUE, _ranked_cell(largest=False)),
}


def evaluate(node: Node, header: Sequence[str], records: Sequence[Sequence[str]]) -> object:
    """The value of a program's tree over a table: a bool, a number, a cell, a DateSpan, MISSING or a row
    set (a tuple of record indices)."""
    return _Run(header, records).evaluate(node)


@dataclass(frozen=True)
class Outcome:
    """What executing a program gave, and the evidence it touched.

    records_read: the records a function other than a filter computed from (count's and only's rows, the
    record hop read, every record argmax, sum or all_eq ranked or tested). A record a filter dropped is
    not read, so deleting a record outside this set leaves the result as it was.
    cells_read: (record, column name) pairs of those records: the cells the consuming functions read, and
    the cells that the filters kept them by. columns_read: every column the program names."""

    result: bool
    expected: bool | None
    records_read: tuple[int, ...]
    columns_read: tuple[str, ...]
    cells_read: tuple[tuple[int, str], ...]

    @property
    def agrees(self) -> bool:
        return self.expected is None or self.result == self.expected


def execute(program: str, header: Sequence[str], records: Sequence[Sequence[str]]) -> Outcome:
    """Run a program (with or without its `=True` suffix) over a table; ProgramError when it cannot run."""
    _, expected = split_expected(program)
    node = parse(program)
    run = _Run(header, records)
    result = run.evaluate(node, "bool")
    cells = set(run.consumed_cells)
    for kept, column in run.filter_marks:
        cells.update((record, column) for record in kept if record in run.consumed_records)
    return Outcome(
        result=bool(result),
        expected=expected,
        records_read=tuple(sorted(run.consumed_records)),
        columns_read=tuple(header[column] for column in sorted(run.columns_named)),
        cells_read=tuple((record, header[column]) for record, column in sorted(cells)),
    )
