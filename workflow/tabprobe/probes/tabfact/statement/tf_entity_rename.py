"""TabFact entity rename (a counterfactual, paper section 6, carried to TabFact): one entity the
statement names is renamed consistently — in every cell that is it or holds it as whole tokens, in
the caption, and everywhere in the statement — to a name the table does not hold. The facts are
the same facts about a differently named thing, so the gold label is expected; a model that
answers from memorised facts about the real name, not from the table, is caught.

Which entities: a cell mention of the statement that names something (a letter, not a function word
or a summary record's "total") and holds no digit (dates and numbers are ordered: renaming them
can change a comparison), in a column whose header says it holds names ("player", "home team":
probes/words/tf_name_headers.txt; "win" / "final" cells of "result" / "round" carry meaning, a
renamed "final" would not).
The new name: a name from the same-named column of another table of the split (ctx.tables), else
from a column of the same kind (the header's last word: "away team" for "home team"); it
occurs in no cell, nor the caption, nor the statement (not even inside a longer text), and does not
hold the old name, so the rename merges nothing. "Another column's values" of any kind (a league
for a university) would make an implausible table, so none is drawn from there.
"""

from __future__ import annotations

from dataclasses import replace

from tabprobe.probes.base import RENAMED, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import RENAME_EDIT
from tabprobe.probes.tabfact.statement.statement_edits import (
    cell_mentions,
    has_digit,
    mentions_phrase,
    names_something,
    occurrences,
    relational,
    replace_spans,
    tokenise,
    words,
)
from tabprobe.wordlists import word_set

NAME_HEADERS = word_set("probes/words/tf_name_headers.txt")
# How many names are tried before giving up (each is checked against the table's text): a table
# holds at most 48 records, so few of 200 names in a row of a column's pool are its own.
TRIES = 200


def name_kind(header: str) -> str | None:
    """The kind of name a column holds ("team" for "home team"), or None for a column of
    another kind; read off the header (NAME_HEADERS: the whole header, else its last word)."""
    header = header.strip()
    if header in NAME_HEADERS:
        return header
    last = header.split()[-1] if header.split() else ""
    return last if last in NAME_HEADERS else None


def names_column(table, column: int) -> bool:
    return name_kind(table.header[column]) is not None


def name_pool(tables) -> dict[str, dict[str, tuple[str, ...]]]:
    """{"header": {column name: names}, "kind": {kind of name: names}} over the names columns of
    the split's tables, each sorted, names without digits (built once per split)."""
    by_header: dict[str, set[str]] = {}
    by_kind: dict[str, set[str]] = {}
    for table_id in sorted(tables):
        table = tables[table_id]
        for column, header in enumerate(getattr(table, "header", ())):
            kind = name_kind(header)
            if kind is None:
                continue
            values = {r[column] for r in table.records if names_something(r[column]) and not has_digit(r[column])}
            by_header.setdefault(header, set()).update(values)
            by_kind.setdefault(kind, set()).update(values)
    return {
        "header": {name: tuple(sorted(values)) for name, values in by_header.items()},
        "kind": {name: tuple(sorted(values)) for name, values in by_kind.items()},
    }


def _draw(ctx: ProbeContext, names: tuple[str, ...], taken: str, old: str) -> str | None:
    """A name from `names` that `taken` (the table's text) does not contain and that does not hold
    the old name ("smith" -> "john smith" would leave "smith" named): the first such from a start
    drawn with ctx.rng, going round the (sorted) names, at most TRIES of them."""
    if not names:
        return None
    start = int(ctx.rng.integers(len(names)))
    for step in range(min(TRIES, len(names))):
        name = names[(start + step) % len(names)]
        if name not in taken and not mentions_phrase(name, old):
            return name
    return None


def _renamed(text: str, old: str, new: str) -> tuple[str, list[dict]]:
    """`text` with every whole-token occurrence of `old` replaced by `new`, and the changes."""
    tokens = tokenise(text)
    spans = [(tokens[i].start, tokens[i + len(old.split()) - 1].end, new) for i in occurrences(words(text), words(old))]
    return replace_spans(text, spans)


def _entities(table, statement: str) -> list[str]:
    found = []
    for mention in cell_mentions(statement, table):
        if names_something(mention.text) and not has_digit(mention.text) and mention.text not in found:
            if any(names_column(table, column) for column in mention.columns):
                found.append(mention.text)
    return found


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    entities = _entities(table, example.hypothesis)
    if not entities:
        raise NotApplicable("no entity of a names column named in the statement")
    old = entities[int(ctx.rng.integers(len(entities)))]
    pool = ctx.shared.get("tf_entity_rename:names")
    if pool is None:
        pool = ctx.shared["tf_entity_rename:names"] = name_pool(ctx.tables)
    taken = "\n".join([table.title, example.hypothesis, *(cell for record in table.records for cell in record)])
    columns = sorted({table.header[c] for record in table.records for c, cell in enumerate(record) if cell == old})
    columns = [column for column in columns if name_kind(column)]
    same = tuple(name for column in columns for name in pool["header"].get(column, ()))
    kind = tuple(name for column in columns for name in pool["kind"].get(name_kind(column), ()))
    new = _draw(ctx, same, taken, old) or _draw(ctx, kind, taken, old)
    if new is None:
        raise NotApplicable("no name of the split's other tables that this table does not hold")
    statement, changes = _renamed(example.hypothesis, old, new)
    cells, records = [], []
    for r, record in enumerate(table.records):
        renamed = []
        for c, cell in enumerate(record):
            value = _renamed(cell, old, new)[0]
            if value != cell:
                cells.append({"record": r, "column": c, "old": cell, "new": value})
            renamed.append(value)
        records.append(renamed)
    title = _renamed(table.title, old, new)[0]
    edited = replace(table, title=title, records=tuple(map(tuple, records)))
    provenance = {
        "changes": changes,
        "old": old,
        "new": new,
        "columns": columns,
        "drawn_from": "same-named column" if new in same else "column of the same kind",
        "table_cells": cells,
        "title": {"old": table.title, "new": title},
    }
    return [ProbeExample(statement, edited, example.label, provenance)]


PROBE = Probe(
    name="tf_entity_rename",
    verdict_role=Role(
        RENAMED,
        "entities renamed in table and statement",
        scorecard="drop with an entity renamed in table and statement",
    ),
    description="TabFact counterfactual: rename one entity consistently in the table and the statement "
    "(gold label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6 (counterfactual tables), on TabFact",
    labels=frozenset({"E", "C"}),
    label_change="preserved",
    family="counterfactual",
    invariants=RENAME_EDIT,
)
