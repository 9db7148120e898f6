"""TabFact number flip (the paper's number edit, section 4, carried to relational tables): an
ENTAILED statement's number that a cell of column X holds as a whole token ("5", "2 - 1",
"5 march 1990") is changed to one that no cell of X holds; the statement is expected REFUTED.

Why that flips it: with no word that makes the number a bound, a range or an estimate, an
ENTAILED statement says the number exactly, whether it reads a cell ("x scored 5") or counts or
sums records ("there be 5 game", "a total of 16 medal"). The true value is the gold number, so any
other is false — and a value no cell of X holds cannot be read off X for any record either. It
is not applied when:
- the statement is REFUTED (a changed number need not make it true);
- it holds a negation ("x did not score 5") or a disjunction;
- it holds a comparison, range or estimate word ("more than 5", "between 3 and 7", "about 5":
  probes/words/tf_number_cues.txt), which a changed number can leave true;
- the number sizes a prefix or window ("the first 5 game": probes/words/tf_prefix_words.txt),
  or is "1 of" ("1 of 3 player" is "one of").
The new number keeps the old one's form: a year (1800-2030) moves 1 to 4 years within that span,
a decimal keeps its places, a whole number moves by 1 to 5 steps of its second digit's place
(5 -> 3, 140 -> 150) and stays positive (0 may move up); a number that ends a range "a - b" no
cell writes ("goal 2 - 5") is left, where a score a cell writes ("2 - 1") is an exact value.
"""

from __future__ import annotations

from decimal import Decimal

from tabprobe.probes.base import LABEL_FLIP, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import STATEMENT_EDIT
from tabprobe.probes.tabfact.statement.statement_edits import (
    NUMBER,
    NUMBER_CUES,
    has_any,
    refuse_unless_flippable,
    relational,
    replace_spans,
    tokenise,
    year_like,
)
from tabprobe.wordlists import word_set

PREFIX_WORDS = word_set("probes/words/tf_prefix_words.txt")


def columns_holding(table, number: str) -> list[int]:
    """The columns with a cell that holds `number` as a whole token."""
    return [c for c in range(len(table.header)) if any(number in record[c].split() for record in table.records)]


def new_numbers(number: str) -> list[str]:
    """Other numbers of the same form (see the module docstring), nearest first."""
    if year_like(number):
        year = int(number)
        return [str(y) for d in (1, 2, 3, 4) for y in (year - d, year + d) if 1800 <= y <= 2030]
    if "." in number:
        places = len(number.split(".")[1])
        step = Decimal(1).scaleb(-places)
        value = Decimal(number)
        moved = [value + sign * d * step for d in range(1, 6) for sign in (-1, 1)]
        return [f"{v:.{places}f}" for v in moved if v >= 0]
    value = int(number)
    step = 10 ** max(0, len(number) - 2)
    # Not 0 for a non-zero number: "0 of the song" reads as "none", a word the statement lacks.
    return [str(v) for d in range(1, 6) for v in (value - d * step, value + d * step) if v > 0 or value == 0 and v >= 0]


def _in_unwritten_range(table, texts: list[str], i: int, columns: list[int]) -> bool:
    """Whether token i is an end of "a - b" that no cell of its columns writes: a range ("goal 2 - 5"
    stays true at "2 - 3"), where a score a cell writes ("won 2 - 1") is one exact value."""
    for first in (i - 2, i):
        window = texts[first : first + 3] if first >= 0 else []
        if len(window) == 3 and window[1] == "-":
            written = " ".join(window)
            return not any(f" {written} " in f" {record[c]} " for c in columns for record in table.records)
    return False


def candidates(table, statement: str) -> list[tuple[int, str, list[int]]]:
    """(token index, new number, columns holding the old one) for every number it may change."""
    tokens = tokenise(statement)
    texts = [t.text for t in tokens]
    found = []
    for i, token in enumerate(tokens):
        if not NUMBER.match(token.text):
            continue
        if i > 0 and texts[i - 1] in PREFIX_WORDS or (token.text == "1" and texts[i + 1 : i + 2] == ["of"]):
            continue
        columns = columns_holding(table, token.text)
        if not columns or _in_unwritten_range(table, texts, i, columns):
            continue
        held = {word for c in columns for record in table.records for word in record[c].split()}
        found += [(i, new, columns) for new in new_numbers(token.text) if new not in held]
    return found


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    texts = refuse_unless_flippable(example.label, example.hypothesis, "a changed number")
    if has_any(texts, NUMBER_CUES):
        raise NotApplicable("a comparison, range or estimate: a changed number can keep it true")
    found = candidates(table, example.hypothesis)
    if not found:
        raise NotApplicable("no number of the statement that a cell holds (or none it may change)")
    positions = sorted({i for i, _, _ in found})
    position = positions[int(ctx.rng.integers(len(positions)))]
    options = [(new, columns) for i, new, columns in found if i == position]
    new, columns = options[int(ctx.rng.integers(len(options)))]
    token = tokenise(example.hypothesis)[position]
    statement, changes = replace_spans(example.hypothesis, [(token.start, token.end, new)])
    provenance = {
        "changes": changes,
        "old": token.text,
        "new": new,
        "token": position,
        "columns": [table.header[c] for c in columns],
        "year": year_like(token.text),
    }
    return [ProbeExample(statement, table, "C", provenance)]


PROBE = Probe(
    name="tf_number_flip",
    verdict_role=Role(
        LABEL_FLIP, "label-flipping statement edit", scorecard="drop on statements with a number changed"
    ),
    description="TabFact: change an exact number of the statement that a cell holds to one its column does not "
    "hold (ENTAILED -> REFUTED).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4 (number edits), on TabFact",
    labels=frozenset({"E", "C"}),
    label_change="flipped",
    family="hypothesis",
    invariants=STATEMENT_EDIT,
)
