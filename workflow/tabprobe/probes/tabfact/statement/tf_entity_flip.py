"""TabFact entity flip (the paper's entity edit, section 4, carried to relational tables): an
ENTAILED statement names a cell value v of column X; v is replaced by another value v' of X, and the
statement is expected to be REFUTED.

When the flip is sound without a program: the statement ties v to other cells of v's record(s)
("player v scored 5": "5" is a cell of a record holding v) — the tied cells — and NO record of the
table holds v' together with any tied cell (holding = a cell exactly equal, in any column, so a
symmetric relation such as "v played against w" is covered whichever column holds each). Then
"player v' scored 5" is false on every reading that ties the two mentions, and every other tie of v
it breaks too. It is not applied when:
- the statement is REFUTED (a swap need not make it true);
- it holds a negation ("v did not score 5" stays true for v') or a disjunction ("v or w scored 5");
- v names nothing but a number (number flips are tf_number_flip's), or v is part of a longer
  mention, or overlaps one;
- v' is already named in the statement (the swap would repeat it), or is a function word or the
  column's own name (a header repeated as a record).
A tied cell that another record, of a third mention, also holds is no tie ("a be a sorority founded before
b": "sorority" is a's), and a number is no tie in a statement that compares or bounds numbers
("nominated between 2009 and 2012 ... in category v"): there the cell is not what the statement
says of v.
A statement may also count records ("the 3 wing , 2 from v"): v' is taken only where fewer
records hold it than any whole number the statement holds, so no count of them can come true.
"""

from __future__ import annotations

from tabprobe.probes.base import LABEL_FLIP, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import STATEMENT_EDIT
from tabprobe.probes.tabfact.statement.statement_edits import (
    NUMBER_CUES,
    Mention,
    can_tie,
    cell_mentions,
    column_values,
    has_any,
    has_letter,
    mentions_phrase,
    names_something,
    occurrences,
    overlaps_another,
    records_holding,
    refuse_unless_flippable,
    relational,
    replace_spans,
    words,
    year_like,
)

# Why an example was skipped, by how far its most promising mention got.
NO_MENTION = "no entity of the table named in the statement"
NO_TIE = "no other cell of the entity's record named in the statement"
NO_OTHER = "no other value of the column whose records lack the tied cells"


def _tied(table, statement: str, mention: Mention, mentions: list[Mention]) -> list[Mention]:
    """The other mentions whose text is a cell of a record holding the mention's text, and of no
    other record holding a third mention's (then the statement may tie it to that one); a number
    is no tie in a statement that compares or bounds numbers ("between 2009 and 2012")."""
    records = records_holding(table, mention.text)
    comparing = has_any(words(statement), NUMBER_CUES)
    tied = []
    for other in mentions:
        if (
            other.text == mention.text
            or not can_tie(other.text)
            or not any(other.text in table.records[r] for r in records)
        ):
            continue
        if comparing and not has_letter(other.text):
            continue
        # held outside v's records by a record of a third mention: the statement may say it of that one
        elsewhere = records_holding(table, other.text) - records
        thirds = [m for m in mentions if m.text not in (mention.text, other.text)]
        if any(elsewhere & records_holding(table, third.text) for third in thirds):
            continue
        tied.append(other)
    return tied


def _counts(statement: str) -> list[int]:
    """The whole numbers of the statement that may count records (not years)."""
    return [int(word) for word in words(statement) if word.isdigit() and not year_like(word)]


def _replacements(table, statement: str, mention: Mention, column: int, tied: list[Mention]) -> list[str]:
    """Values of the column that the flip may put in the mention's place (see the module docstring)."""
    tied_texts = {t.text for t in tied}
    tokens = words(statement)
    before = tokens[mention.first - 1] if mention.first > 0 else None
    after = tokens[mention.last] if mention.last < len(tokens) else None
    counts = _counts(statement)
    out = []
    for value in column_values(table, column):
        if value == mention.text or not names_something(value) or mentions_phrase(statement, value):
            continue
        if value == table.header[column] or value.split()[0] == before or value.split()[-1] == after:
            continue  # a header repeated as a record; "final round" -> "second round round"
        holders = records_holding(table, value)
        if any(tied_texts & set(table.records[r]) for r in holders):
            continue  # v' shares a record with a tied cell: "v' scored 5" may be true
        if any(len(holders) >= n for n in counts):
            continue  # "2 of them from v'" may count v''s records: it needs fewer than 2 of them
        out.append(value)
    return out


def candidates(table, statement: str) -> tuple[list[tuple[Mention, int, list[Mention], str]], str]:
    """Every sound (mention, column, tied mentions, replacement), and the furthest reason for none."""
    mentions = cell_mentions(statement, table)
    tokens = words(statement)
    stage, found = 0, []
    for mention in mentions:
        if not names_something(mention.text) or overlaps_another(mention, mentions):
            continue
        same = [m for m in mentions if m.text == mention.text]
        if len(occurrences(tokens, words(mention.text))) != len(same) or mention is not same[0]:
            continue  # named again inside a longer mention, or a later mention of the same value
        stage = max(stage, 1)
        tied = _tied(table, statement, mention, mentions)
        if not tied:
            continue
        stage = 2
        for column in mention.columns:
            found += [
                (mention, column, tied, value) for value in _replacements(table, statement, mention, column, tied)
            ]
    return found, (NO_MENTION, NO_TIE, NO_OTHER)[stage]


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    refuse_unless_flippable(example.label, example.hypothesis, "a swap")
    found, reason = candidates(table, example.hypothesis)
    if not found:
        raise NotApplicable(reason)
    mention, column, tied, value = found[int(ctx.rng.integers(len(found)))]
    same = [m for m in cell_mentions(example.hypothesis, table) if m.text == mention.text]
    statement, changes = replace_spans(example.hypothesis, [(m.start, m.end, value) for m in same])
    provenance = {
        "changes": changes,
        "column": table.header[column],
        "column_index": column,
        "old": mention.text,
        "new": value,
        "tied_cells": sorted({t.text for t in tied}),
        "records_of_old": sorted(records_holding(table, mention.text)),
        "records_of_new": sorted(records_holding(table, value)),
    }
    return [ProbeExample(statement, table, "C", provenance)]


PROBE = Probe(
    name="tf_entity_flip",
    verdict_role=Role(
        LABEL_FLIP, "label-flipping statement edit", scorecard="drop on statements with an entity replaced"
    ),
    description="TabFact: replace an entity tied to another cell of its record by another value of its column "
    "whose records lack that cell (ENTAILED -> REFUTED).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4 (entity edits), on TabFact",
    labels=frozenset({"E", "C"}),
    label_change="flipped",
    family="hypothesis",
    invariants=STATEMENT_EDIT,
)
