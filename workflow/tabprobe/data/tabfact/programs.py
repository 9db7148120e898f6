"""Execute TabFact's logical-form programs over a relational table, and say what they read.

A program (bootstrap/bootstrap.json of TabFact, the Logic2Text grammar: program_grammar.py, which parses
and checks it, whatever the table) is a nested call such as
`eq{count{filter_eq{filter_greater{all_rows; total; 30}; style; jive}}; 2}=True`.

The executor was written from the function names, the programs and the tables, not from TabFact's code.
Row sets are tuples of record indices, so `execute` can report the evidence a program touched: the records
whose cells decided its result and the columns it named. That evidence is the "relevant cells" of a
record-deletion probe, and re-executing the program on an edited table, read as the original was (`like`),
recomputes the statement's label. A program that would order text cannot be run soundly and is refused
(UnsoundProgramError). What a cell or literal means (numbers at their stated precision, dates, fuzzy
matches) lives in program_values.py.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from tabprobe.data.tabfact import program_values as values
from tabprobe.data.tabfact.program_grammar import (
    SIGNATURES,
    Call,
    Literal,
    Node,
    ProgramError,
    ProgramSyntaxError,
    UnknownFunctionError,
    parse,
    shown,
    split_expected,
)
from tabprobe.data.tabfact.program_values import MISSING, Value
from tabprobe.data.tabfact.reading import EMPTY_HEADER_NAME_PATTERN

# The grammar's names, for the callers that run programs (ingest, the probes, the benches).
__all__ = [
    "Call",
    "Literal",
    "Node",
    "Outcome",
    "ProgramError",
    "ProgramSyntaxError",
    "ProgramValueError",
    "UnknownFunctionError",
    "UnsoundProgramError",
    "execute",
    "parse",
    "resolve_column",
    "shown",
    "split_expected",
]

RowSet = tuple[int, ...]
T = TypeVar("T")


class ProgramValueError(ProgramError):
    """A well-formed program that does not fit its table: a column that is not there."""


class UnsoundProgramError(ProgramError):
    """A well-formed program whose result on this table would mean nothing the statement says: it orders
    text (`greater` of `lp` and `cd`, `argmin` over a column of names), which has no order but the
    alphabet's. Its statement is dropped (ingest counts it), as is a probe example that would rest on it."""


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
    readings: list[str] = field(default_factory=list)
    # The readings of the original table's run, for a run on an edited one to follow (execute's `like`).
    like: Sequence[str] = ()

    def reading(self, function: str, decide: Callable[[], tuple[str, T]], follow: Callable[[str], T]) -> T:
        """What a filter or a ranking finds, read as the original run read the original table where it was
        given one that found something (`like`: not "none", nor "text" for a single cell), else as `decide`
        reads this table; noted in `readings` either way."""
        position = len(self.readings)
        original = self.like[position].partition(": ")[2] if position < len(self.like) else "none"
        if original in ("none", "text"):
            how, found = decide()
        else:
            how, found = original, follow(original)
        self.readings.append(f"{function}: {how}")
        return found

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

    def evaluate(self, node: Node, kind: str) -> object:
        """The value of a parsed (so well-kinded) tree; arguments left to right, each node once, so two runs
        of one program note their readings in the same order."""
        if isinstance(node, Literal):
            return self.literal(node, kind)
        kinds = SIGNATURES[node.function].arguments
        arguments = [self.evaluate(argument, kind) for argument, kind in zip(node.arguments, kinds)]
        try:
            return FUNCTIONS[node.function](self, *arguments)
        except values.TextOrdering as ordering:
            left, right = ordering.texts
            raise UnsoundProgramError(
                f"{node.function} at character {node.position} orders text ({left!r} against {right!r}): text has "
                "no order but the alphabet's, which is no claim of the statement, so the program cannot be run soundly"
            ) from None

    def literal(self, node: Literal, kind: str) -> object:
        if kind == "column":
            column = resolve_column(self.header, node.text)
            self.columns_named.add(column)
            return column
        if kind == "rows":  # all_rows: the grammar allows no other literal here
            return tuple(range(len(self.records)))
        return node.text


def _filter(test: Callable[[Value, Value], bool]) -> Callable[[_Run, RowSet, int, Value], RowSet]:
    def keep_matching(run: _Run, rows: RowSet, column: int, value: Value) -> RowSet:
        kept = tuple(record for record in rows if test(run.cell(record, column), value))
        run.filter_marks.append((kept, column))
        return kept

    return keep_matching


def _filter_equal(keep_equal: bool) -> Callable[[_Run, RowSet, int, Value], RowSet]:
    """filter_eq (and filter_not_eq, the rest): the records whose cell is the value, token for token, where
    there are any (`back` names `back`, not `running back`); else those the fuzzy match of values_equal takes,
    since the programs were written against one (`pepsi center` for `pepsi center 18611`). Which of the two
    read the table is noted ("exact", "fuzzy", or "none" where neither matched anything). A cell that lists
    the value (`hong kong` in `wan chai , hong kong`) is no exact match: counted so, 2 more bootstrap
    programs held and 4 fewer (docs/tabfact.md)."""

    def matching(run: _Run, rows: RowSet, column: int, value: Value, how: str) -> RowSet:
        test = values.strings_equal if how == "exact" else values.values_equal
        return tuple(record for record in rows if test(run.cell(record, column), value))

    def keep(run: _Run, rows: RowSet, column: int, value: Value) -> RowSet:
        def exact_first() -> tuple[str, RowSet]:
            for how in ("exact", "fuzzy"):
                if found := matching(run, rows, column, value, how):
                    return how, found
            return "none", ()

        def follow(how: str) -> RowSet:
            return matching(run, rows, column, value, how)

        equal = run.reading(f"filter_{'' if keep_equal else 'not_'}eq", exact_first, follow)
        kept = equal if keep_equal else tuple(record for record in rows if record not in equal and value is not MISSING)
        run.filter_marks.append((kept, column))
        return kept

    return keep


def _every(test: Callable[[Value, Value], bool], share: float) -> Callable[[_Run, RowSet, int, Value], bool]:
    """all_* (share 1) and most_* (share one half, strictly more): an empty row set is False, because
    the statement presumes the records exist."""

    def holds_for_enough(run: _Run, rows: RowSet, column: int, value: Value) -> bool:
        run.read(rows, column)
        rows = tuple(record for record in rows if not run.is_summary(record))
        passing = sum(test(run.cell(record, column), value) for record in rows)
        return bool(rows) and (passing == len(rows) if share == 1 else passing > share * len(rows))

    return holds_for_enough


def _nth_ranked(run: _Run, rows: RowSet, column: int, nth: Value, largest: bool, function: str) -> RowSet:
    """The record holding the nth largest (or smallest) cell; ties keep table order, and cells that do not
    rank (`-` among numbers) are left out. An empty row set when there are fewer than n."""
    run.read(rows, column)
    rows = tuple(record for record in rows if not run.is_summary(record))
    cells = [run.cell(record, column) for record in rows]
    keys = run.reading(function, lambda: values.ranking_keys(cells), lambda how: values.ranking_keys(cells, how)[1])
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


def _ranked_cell(function: str, largest: bool) -> Callable[..., Value]:
    """max / min (place 1) and nth_max / nth_min: the cell itself, as written, so that eq compares it with
    what the annotator typed (`eq{max{all_rows; away}; 2 - 0}`). FUNCTIONS fixes which take a place."""

    def cell_at_rank(run: _Run, rows: RowSet, column: int, place: Value = "1") -> Value:
        return _hop(run, _nth_ranked(run, rows, column, place, largest, function), column)

    return cell_at_rank


def _ranked_row(function: str, largest: bool) -> Callable[..., RowSet]:
    """argmax / argmin (place 1) and nth_argmax / nth_argmin: a row set of the one record."""
    return lambda run, rows, column, place="1": _nth_ranked(run, rows, column, place, largest, function)


_COMPARISONS: dict[str, Callable[[Value, Value], bool]] = {  # program_grammar.COMPARISONS
    "eq": values.values_equal,
    "not_eq": _not_equal,
    "greater": values.greater,
    "less": values.less,
    "greater_eq": _greater_eq,
    "less_eq": _less_eq,
}
_FILTERS = {**{name: _filter(test) for name, test in _COMPARISONS.items()}}
_FILTERS.update(eq=_filter_equal(keep_equal=True), not_eq=_filter_equal(keep_equal=False))

# What each function of the grammar (program_grammar.SIGNATURES) computes, called with the run and its
# evaluated arguments.
FUNCTIONS: dict[str, Callable[..., object]] = {
    **{f"filter_{name}": keep for name, keep in _FILTERS.items()},
    **{f"all_{name}": _every(test, 1) for name, test in _COMPARISONS.items()},
    **{f"most_{name}": _every(test, 0.5) for name, test in _COMPARISONS.items()},
    **{name: lambda run, left, right, test=test: test(left, right) for name, test in _COMPARISONS.items()},
    "filter_all": lambda run, rows, column: rows,
    "round_eq": lambda run, left, right: _round_eq(left, right),
    "str_eq": lambda run, left, right: values.strings_equal(left, right),
    "not_str_eq": lambda run, left, right: _not_string_equal(left, right),
    "diff": lambda run, left, right: values.difference(left, right),
    "and": lambda run, left, right: left and right,
    "count": _count,
    "only": _only,
    "hop": _hop,
    "sum": lambda run, rows, column: _aggregate(run, rows, column, mean=False),
    "avg": lambda run, rows, column: _aggregate(run, rows, column, mean=True),
    **{
        name: _ranked_row(name, largest)
        for name, largest in (("argmax", True), ("argmin", False), ("nth_argmax", True), ("nth_argmin", False))
    },
    **{
        name: _ranked_cell(name, largest)
        for name, largest in (("max", True), ("min", False), ("nth_max", True), ("nth_min", False))
    },
}


@dataclass(frozen=True)
class Outcome:
    """What executing a program gave, and the evidence it touched.

    records_read: the records a function other than a filter computed from (count's and only's rows, the
    record hop read, every record argmax, sum or all_eq ranked or tested). A record a filter dropped is
    not read, so deleting a record outside this set leaves the result as it was.
    cells_read: (record, column name) pairs of those records: the cells the consuming functions read, and
    the cells that the filters kept them by. columns_read: every column the program names.
    readings: how each filter_eq / filter_not_eq matched ("filter_eq: exact", "fuzzy" or "none") and each
    ranking ordered its column ("argmax: numbers", "dates" or "text" for a single cell), in the order the
    program ran them: what execute's `like` hands a run on an edited table."""

    result: bool
    expected: bool | None
    records_read: tuple[int, ...]
    columns_read: tuple[str, ...]
    cells_read: tuple[tuple[int, str], ...]
    readings: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        return self.expected is None or self.result == self.expected


def execute(
    program: str, header: Sequence[str], records: Sequence[Sequence[str]], like: Outcome | None = None
) -> Outcome:
    """Run a program (with or without its `=True` suffix) over a table; ProgramError when it cannot run
    (ProgramSyntaxError: not a program; ProgramValueError: it does not fit the table; UnsoundProgramError:
    its result would mean nothing the statement says).

    `like`: the outcome of the same program on the original of an edited table, whose readings this run
    follows, so that the program means on the edited table what it meant on the original. A filter that
    took the one cell equal to `back` takes no `running back` once that record is deleted (the exact-first
    match would fall back to the fuzzy one), and a column that ranked as numbers still does after a cell of
    text is written into it."""
    _, expected = split_expected(program)
    node = parse(program)
    run = _Run(header, records, like=like.readings if like is not None else ())
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
        readings=tuple(run.readings),
    )
