"""What the TabFact statement probes share: the statement's tokens, the table cells and numbers it
mentions (by token spans), the words that make an edit unsound, and span replacements that keep the
statement's tokenisation.

TabFact statements are lower-cased and tokenised as its tables' cells are ("there be 2 - 1 win ."):
tokens are separated by single spaces, so a cell is mentioned exactly where its tokens occur as a
run of whole tokens in the statement. A mention inside a longer mention ("smith" inside "john smith",
both cells) is not one of its own: the longer one is what the statement names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes.base import NotApplicable
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_set

TOKEN = re.compile(r"\S+")
# A number as TabFact writes it: digits, optionally one decimal part; "1,234" and "5th" are not.
NUMBER = re.compile(r"^(?:0|[1-9]\d*)(?:\.\d+)?$")
# Words that already negate a statement, "not" included ("never", "no", "none", ...).
NEGATIONS = word_set("probes/words/tf_negations.txt")
# Words that join alternatives: a claim "a or b" stays true when one side is edited.
DISJUNCTIONS = word_set("probes/words/tf_disjunctions.txt")
# Words that make a number a bound, a range or an estimate ("more than 5", "between 3 and 7").
NUMBER_CUES = word_set("probes/words/tf_number_cues.txt")
# Function words ("of", "the", "a"): a cell that is one ("of" is an outfielder's position) names
# nothing in a statement.
FUNCTION_WORDS = word_set("probes/words/tf_function_words.txt")
# Cells of a summary record or placeholders ("total", "n / a"): they name no entity.
SUMMARY_CELLS = word_set("probes/words/tf_summary_cells.txt")


@dataclass(frozen=True)
class Token:
    text: str
    start: int  # character offsets into the statement
    end: int


@dataclass(frozen=True)
class Mention:
    """A run of statement tokens equal to one or more cells of the table."""

    text: str
    first: int  # token indices, `last` exclusive
    last: int
    start: int  # character offsets
    end: int
    cells: tuple[tuple[int, int], ...]  # (record, column) of every cell with exactly this text

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted({column for _, column in self.cells}))


def relational(table) -> RelationalTable:
    """The table as a RelationalTable, or NotApplicable: these probes edit TabFact's tables only."""
    if not isinstance(table, RelationalTable):
        raise NotApplicable(f"not a TabFact table ({type(table).__name__}): a TabFact probe")
    return table


def refuse_unless_flippable(label: str, statement: str, edit: str) -> tuple[str, ...]:
    """The statement's words, or NotApplicable where editing one of its values (`edit`: "a swap",
    "a changed number") need not make it false: a REFUTED statement (the edit need not make it
    true), a negation ("x did not score 5" stays true for y) or a disjunction ("x or y")."""
    if label != "E":
        raise NotApplicable(f"refuted: {edit} need not make it true")
    tokens = words(statement)
    if has_any(tokens, NEGATIONS):
        raise NotApplicable(f"a negation: {edit} can keep it true")
    if has_any(tokens, DISJUNCTIONS):
        raise NotApplicable("a disjunction: the other alternative can keep it true")
    return tokens


def tokenise(text: str) -> tuple[Token, ...]:
    return tuple(Token(m.group(0), m.start(), m.end()) for m in TOKEN.finditer(text))


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def has_any(tokens: Sequence[str], phrases: Iterable[str]) -> bool:
    """Whether any phrase (one or more words) occurs as whole tokens in `tokens`."""
    return any(occurrences(tokens, words(phrase)) for phrase in phrases)


def occurrences(tokens: Sequence[str], phrase: Sequence[str]) -> list[int]:
    """The token indices where `phrase` starts as a run of whole tokens."""
    n = len(phrase)
    if n == 0:
        return []
    return [i for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n]) == tuple(phrase)]


def mentions_phrase(text: str, phrase: str) -> bool:
    return bool(occurrences(words(text), words(phrase)))


def cell_index(table: RelationalTable) -> dict[tuple[str, ...], list[tuple[int, int]]]:
    """Each cell's tokens -> the (record, column) of every cell with them; cells without a letter
    or a digit ("-", "") name nothing a statement could mention."""
    index: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for r, record in enumerate(table.records):
        for c, cell in enumerate(record):
            key = tuple(cell.split())
            if key and any(ch.isalnum() for ch in cell):
                index.setdefault(key, []).append((r, c))
    return index


def cell_mentions(statement: str, table: RelationalTable) -> list[Mention]:
    """Every maximal mention of a cell in the statement, in statement order."""
    tokens = tokenise(statement)
    texts = [t.text for t in tokens]
    found = []
    for key, cells in cell_index(table).items():
        for i in occurrences(texts, key):
            j = i + len(key)
            found.append(Mention(" ".join(key), i, j, tokens[i].start, tokens[j - 1].end, tuple(cells)))
    maximal = [
        m
        for m in found
        if not any(
            o is not m and o.first <= m.first and m.last <= o.last and o.last - o.first > m.last - m.first
            for o in found
        )
    ]
    return sorted(maximal, key=lambda m: (m.first, m.last))


def names_something(text: str) -> bool:
    """Whether a cell's text can name an entity in a statement: a letter, two characters, and not
    only function words, nor a summary record's name ("total")."""
    return (
        has_letter(text)
        and len(text) >= 2
        and text not in SUMMARY_CELLS
        and not all(word in FUNCTION_WORDS for word in text.split())
    )


def can_tie(text: str) -> bool:
    """Whether a mentioned cell can tie a statement to a record: an entity or a number."""
    return names_something(text) or (has_digit(text) and text not in SUMMARY_CELLS)


def overlaps_another(mention: Mention, mentions: Sequence[Mention]) -> bool:
    return any(o != mention and o.first < mention.last and mention.first < o.last for o in mentions)


def records_holding(table: RelationalTable, text: str) -> set[int]:
    """The records with a cell that is exactly `text`."""
    return {r for r, record in enumerate(table.records) if text in record}


def column_values(table: RelationalTable, column: int) -> list[str]:
    """The column's distinct cells, in record order."""
    return list(dict.fromkeys(record[column] for record in table.records))


def has_letter(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def replace_spans(statement: str, spans: Sequence[tuple[int, int, str]]) -> tuple[str, list[dict]]:
    """The statement with each (start, end, new) character span replaced, and the changes as the
    hypothesis-edit invariants read them ({start, end, old, new}, offsets into the original)."""
    changes = [change(statement, start, end, new) for start, end, new in spans]
    return apply_changes(statement, changes), changes


def remove_token_span(statement: str, tokens: Sequence[Token], first: int, last: int) -> tuple[int, int]:
    """The character span that removes tokens[first:last] with one of the spaces beside them, so
    the tokenisation stays single-spaced ("be not play" -> "be play")."""
    if first > 0:
        return tokens[first - 1].end, tokens[last - 1].end
    if last < len(tokens):
        return tokens[first].start, tokens[last].start
    return tokens[first].start, tokens[last - 1].end


def year_like(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and 1800 <= int(text) <= 2030
