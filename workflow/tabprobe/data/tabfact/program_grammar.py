"""The grammar of TabFact's programs (bootstrap/bootstrap.json, Logic2Text's): their syntax, the functions
with the kinds of their arguments and results, and the parser that checks a program against both, whatever
the table. programs.py runs a parsed program over a table.

A program is a nested call such as `eq{count{filter_eq{all_rows; style; jive}}; 2}=True`: a function name,
then its arguments in braces separated by `;`. An argument is a call or a literal: `all_rows`, a column
name, or a value that may hold spaces, commas, parentheses and hyphens. The `=True` / `=False` suffix is the
value the annotator expects. Kinds: "rows" (a set of records), "column" (a column name, always a literal),
"value" (a cell, a number, a date...) and "bool".
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


class ProgramError(ValueError):
    """A program that cannot be executed; the subclasses say why."""


class ProgramSyntaxError(ProgramError):
    """The text is not a well-formed program of the grammar, whatever the table: its braces, its nesting,
    a function's name, the number or kinds of its arguments. The message says where it broke."""


class UnknownFunctionError(ProgramSyntaxError):
    """A function name outside the grammar this executor knows."""


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
# The deepest of the 1,499 bootstrap programs nests 6 calls; the parser and the evaluator recurse once per
# call, so a limit far above that and far below Python's recursion limit keeps a pathological program
# (50,000 braces) a syntax error instead of a RecursionError.
MAX_DEPTH = 100
_KIND_NAMES = {"rows": "rows", "value": "a value", "bool": "a truth value", "column": "a column name"}


def _belongs(kind: str) -> str:
    return f"{_KIND_NAMES[kind]} {'belong' if kind == 'rows' else 'belongs'}"


_SHOWN = 160  # characters of a program an error quotes


def split_expected(program: str) -> tuple[str, bool | None]:
    """The program's body and the value after `=` (True or False), None when it has no suffix."""
    match = _EXPECTED_SUFFIX.search(program)
    if match is None:
        return program, None
    return program[: match.start()], match.group(1) == "True"


def shown(program: str) -> str:
    """A program as an error quotes it: whole, or its start and its length when it is long."""
    if len(program) <= _SHOWN:
        return repr(program)
    return f"{program[:_SHOWN]!r}... ({len(program):,} characters)"


def parse(program: str) -> Node:
    """The program's tree, without its `=True` / `=False` suffix (see split_expected), checked against the
    grammar: known functions, each with its number and kinds of arguments, and a truth value as the claim.
    ProgramSyntaxError (UnknownFunctionError for a name) where it is not such a program."""
    body, _ = split_expected(program)
    parser = _Parser(body)
    node = parser.node()
    parser.skip_space()
    if parser.position != len(body):
        parser.fail("text after the end of the program")
    parser.check_kind(node, "bool", "the program's claim")  # the grammar, once the braces are known to be right
    return node


class _Parser:
    """Recursive descent over `name{argument; argument; ...}`; a literal runs to the next `;`, `{` or `}`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.depth = 0

    def fail(self, problem: str, at: int | None = None, error: type[ProgramSyntaxError] = ProgramSyntaxError) -> None:
        where = self.position if at is None else at
        near = self.text[max(0, where - 30) : where + 30]
        raise error(f"{problem} at character {where} (near {near!r}) in program {shown(self.text)}")

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
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.fail(f"calls nested more than {MAX_DEPTH} calls deep", start)
            self.position += 1
            call = Call(word, self.arguments(), start)
            self.depth -= 1
            return call
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

    def check_arguments(self, call: Call) -> None:
        if call.function not in SIGNATURES:
            close = difflib.get_close_matches(call.function, SIGNATURES, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(sorted(SIGNATURES))}"
            self.fail(f"unknown function {call.function!r} ({hint})", call.position, UnknownFunctionError)
        kinds = SIGNATURES[call.function].arguments
        if len(call.arguments) != len(kinds):
            plural = "" if len(kinds) == 1 else "s"
            self.fail(
                f"{call.function} takes {len(kinds)} argument{plural} ({', '.join(kinds)}), got {len(call.arguments)}",
                call.position,
            )
        for number, (argument, kind) in enumerate(zip(call.arguments, kinds), start=1):
            self.check_kind(argument, kind, f"argument {number} of {call.function}")

    def check_kind(self, node: Node, kind: str, where: str) -> None:
        """That `node` gives what its place takes: a column name is a literal, rows a call giving rows or
        `all_rows`, a value a literal or a call giving one, a truth value a call giving one."""
        if isinstance(node, Call):
            self.check_arguments(node)
            gives = SIGNATURES[node.function].gives
            if kind == "column":
                self.fail(f"a column name belongs in {where}, not a call of {node.function}", node.position)
            if gives != kind:
                self.fail(f"{node.function} gives {_KIND_NAMES[gives]} where {_belongs(kind)} ({where})", node.position)
            return
        gives = "rows" if node.text == "all_rows" else "value"
        if kind in ("rows", "bool") and gives != kind or kind == "value" and gives == "rows":
            self.fail(f"{node.text!r} where {_belongs(kind)} ({where})", node.position)


_ROWS_COLUMN = ("rows", "column")
_ROWS_COLUMN_VALUE = ("rows", "column", "value")
_TWO_VALUES = ("value", "value")
COMPARISONS = ("eq", "not_eq", "greater", "less", "greater_eq", "less_eq")


@dataclass(frozen=True)
class Signature:
    """The kinds of a function's arguments, and the kind it gives."""

    arguments: tuple[str, ...]
    gives: str


SIGNATURES: dict[str, Signature] = {
    **{f"filter_{name}": Signature(_ROWS_COLUMN_VALUE, "rows") for name in COMPARISONS},
    **{
        f"{quantifier}_{name}": Signature(_ROWS_COLUMN_VALUE, "bool")
        for quantifier in ("all", "most")
        for name in COMPARISONS
    },
    **{name: Signature(_TWO_VALUES, "bool") for name in (*COMPARISONS, "round_eq", "str_eq", "not_str_eq")},
    "filter_all": Signature(_ROWS_COLUMN, "rows"),
    "diff": Signature(_TWO_VALUES, "value"),
    "and": Signature(("bool", "bool"), "bool"),
    "count": Signature(("rows",), "value"),
    "only": Signature(("rows",), "bool"),
    "hop": Signature(_ROWS_COLUMN, "value"),
    **{name: Signature(_ROWS_COLUMN, "value") for name in ("sum", "avg", "max", "min")},
    **{name: Signature(_ROWS_COLUMN, "rows") for name in ("argmax", "argmin")},
    **{name: Signature(_ROWS_COLUMN_VALUE, "rows") for name in ("nth_argmax", "nth_argmin")},
    **{name: Signature(_ROWS_COLUMN_VALUE, "value") for name in ("nth_max", "nth_min")},
}
