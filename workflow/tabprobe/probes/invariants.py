"""What a probe promises about every example it writes, checked on every example.

A probe declares its invariants (`Probe.invariants`); `perturb` checks each perturbation against
them before one is sampled, drops the ones that break a promise, counts them in the coverage
table under the invariant's name and lists them in the job log. A probe that declares none gets
`CHANGES_SOMETHING`, so the contract test covers a new probe from its first line.

Each check looks at the pair itself — the gold example and its table before, the probe example
after — and recomputes what the provenance claims instead of trusting it: a bug in a probe shows
up here, as a dropped and counted example, not in a researcher's numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tabprobe.data.infobox.table import Row, Table, normalised
from tabprobe.probes.base import Example, ProbeExample

Check = Callable[[Example, Table, ProbeExample], "str | None"]


@dataclass(frozen=True)
class Invariant:
    """A promise about a probe's output. `name` is what the coverage table counts a breach under;
    `check` returns None when the promise holds, else what broke it (for the job log)."""

    name: str
    check: Check


def breaches(
    invariants: Iterable[Invariant], example: Example, table: Table, out: ProbeExample
) -> list[tuple[str, str]]:
    """(invariant name, what broke it) for every promise `out` breaks."""
    found = []
    for invariant in invariants:
        detail = invariant.check(example, table, out)
        if detail is not None:
            found.append((invariant.name, detail))
    return found


def of(probe) -> tuple[Invariant, ...]:
    """The invariants checked on a probe's examples: those it declares (or CHANGES_SOMETHING),
    and the expected label its label_change promises."""
    declared = tuple(probe.invariants) if probe.invariants is not None else (CHANGES_SOMETHING,)
    label = label_kept_or_flipped(probe.label_change)
    return declared + ((label,) if label is not None else ())


# ---------------------------------------------------------------- any probe


def same_table(a: Table, b: Table) -> bool:
    """The same content: an infobox's title and rows, a relational table's caption, header and
    records (where they came from aside). By their fields, not their classes: a probe of one
    table type imports nothing of the other (its code inputs stay its own)."""
    if type(a) is not type(b):
        return False
    if hasattr(a, "rows"):
        return a.title == b.title and a.rows == b.rows
    return (a.title, a.header, a.records) == (b.title, b.header, b.records)


def _changes_something(example, table, out):
    if out.hypothesis == example.hypothesis and same_table(out.table, table):
        return "neither the hypothesis nor the table changed"
    return None


CHANGES_SOMETHING = Invariant("changes the table or the hypothesis", _changes_something)


def _keeps_hypothesis(example, table, out):
    return None if out.hypothesis == example.hypothesis else f"hypothesis changed to {out.hypothesis!r}"


HYPOTHESIS_KEPT = Invariant("leaves the hypothesis as written", _keeps_hypothesis)


def _keeps_table(example, table, out):
    return None if same_table(out.table, table) else "the table changed"


TABLE_KEPT = Invariant("leaves the table as it was", _keeps_table)


# ---------------------------------------------------------------- hypothesis edits


def _edits_reproduce(example, table, out):
    """The recorded character edits, applied to the gold hypothesis, give the new one; each edit
    replaces what the gold text holds at its span, and changes it."""
    edits = out.provenance.get("changes")
    if not edits:
        return "no edit recorded"
    text, cursor, pieces = example.hypothesis, 0, []
    for edit in sorted(edits, key=lambda e: e["start"]):
        if edit["start"] < cursor or edit["end"] > len(text):
            return f"edit {edit} overlaps another or runs past the text"
        if text[edit["start"] : edit["end"]] != edit["old"]:
            return f"edit says it replaces {edit['old']!r} at {edit['start']}, the text holds {text[edit['start'] : edit['end']]!r}"
        if normalised(edit["old"]) == normalised(edit["new"]):
            return f"edit {edit['old']!r} -> {edit['new']!r} changes nothing but case or spacing"
        pieces += [text[cursor : edit["start"]], edit["new"]]
        cursor = edit["end"]
    pieces.append(text[cursor:])
    rebuilt = "".join(pieces)
    return None if rebuilt == out.hypothesis else f"the edits give {rebuilt!r}, the example holds {out.hypothesis!r}"


EDITS_REPRODUCE = Invariant("its recorded edits reproduce the hypothesis", _edits_reproduce)

# Spacing an edit may not introduce: a doubled space, a space before punctuation, an empty start.
_BAD_SPACING = ("  ", " ,", " .", " ;", " :", " ?", " !", ",,", "..")


def _clean_spacing(example, table, out):
    if not out.hypothesis.strip():
        return "the hypothesis is empty"
    for flaw in _BAD_SPACING:
        if out.hypothesis.count(flaw) > example.hypothesis.count(flaw):
            return f"introduces {flaw!r}: {out.hypothesis!r}"
    if out.hypothesis[:1].isspace() and not example.hypothesis[:1].isspace():
        return f"starts with a space: {out.hypothesis!r}"
    return None


CLEAN_SPACING = Invariant("introduces no doubled space or stray punctuation", _clean_spacing)


# ---------------------------------------------------------------- expected labels

FLIPPED = {"E": "C", "C": "E"}


def label_kept_or_flipped(label_change: str | None) -> Invariant | None:
    """The expected label a hypothesis probe of paper Table 4 or 7 promises by its label_change."""
    if label_change == "preserved":
        return Invariant(
            "keeps the gold label",
            lambda ex, _t, out: None if out.expected == ex.label else f"expected {out.expected} for gold {ex.label}",
        )
    if label_change == "flipped":
        return Invariant(
            "flips ENTAIL and CONTRADICT",
            lambda ex, _t, out: (
                None if out.expected == FLIPPED.get(ex.label) else f"expected {out.expected} for gold {ex.label}"
            ),
        )
    return None


# ---------------------------------------------------------------- row edits


def replay_row_edits(table: Table, provenance) -> tuple[Row, ...]:
    """The rows the provenance says the probe made: deletions (indices into the gold table),
    then insertions (each index into the table as it is then), then value updates and rewritten
    cells (indices into the result). KeyError/IndexError when the record does not fit the table."""
    deleted = provenance.get("deleted_rows") or ([provenance["deleted_row"]] if "deleted_row" in provenance else [])
    for record in deleted:
        row = table.rows[record["index"]]
        if row.key != record["key"] or list(row.values) != record["values"]:
            raise ValueError(
                f"deleted row {record['index']} is {row.key!r}: {list(row.values)}, not "
                f"{record['key']!r}: {record['values']}"
            )
    gone = {record["index"] for record in deleted}
    rows = [row for i, row in enumerate(table.rows) if i not in gone]
    inserted = provenance.get("inserted_rows") or ([provenance["inserted_row"]] if "inserted_row" in provenance else [])
    for record in inserted:
        if not 0 <= record["index"] <= len(rows):
            raise IndexError(f"insertion at {record['index']} in a table of {len(rows)} rows")
        rows.insert(record["index"], Row(record["key"], tuple(record["values"])))
    cells = list(provenance.get("table_cells", []))
    if "updated_row" in provenance:
        update = provenance["updated_row"]
        cells.append(
            {
                "row": update["index"],
                "key": update["key"],
                "value_index": update["value_index"],
                "old": update["old"],
                "new": update["new"],
            }
        )
    for cell in cells:
        row = rows[cell["row"]]
        if row.key != cell["key"] or row.values[cell["value_index"]] != cell["old"]:
            raise ValueError(
                f"cell {cell['row']}/{cell['value_index']} holds {row.values[cell['value_index']]!r} "
                f"under {row.key!r}, not {cell['old']!r}"
            )
        values = list(row.values)
        values[cell["value_index"]] = cell["new"]
        rows[cell["row"]] = Row(row.key, tuple(values))
    if "order" in provenance:
        order = provenance["order"]
        if sorted(order) != list(range(len(rows))):
            raise ValueError(f"order {order} is not a permutation of {len(rows)} rows")
        rows = [rows[i] for i in order]
    return tuple(rows)


def _row_edits_replay(example, table, out):
    try:
        rows = replay_row_edits(table, out.provenance)
    except (KeyError, IndexError, ValueError) as error:
        return f"the recorded row edits do not fit the table: {error}"
    if out.table.title != table.title:
        return f"the title changed to {out.table.title!r}"
    if rows != out.table.rows:
        return "the recorded row edits do not give the new table"
    return None


ROW_EDITS_REPLAY = Invariant("its recorded row edits turn the table into the new one", _row_edits_replay)


def _without_asides(value: str) -> str:
    return normalised(re.sub(r"\([^)]*\)", " ", value))  # "Superman (Kal-El)" is "superman"


def _value_new_to_row(example, table, out):
    update = out.provenance.get("updated_row")
    if update is None:
        return "no updated row recorded"
    row = table.rows[update["index"]]
    if not update["new"].strip():
        return "the new value is empty"
    if _without_asides(update["new"]) in {_without_asides(v) for v in row.values}:
        return f"{update['new']!r} is already in row {row.key!r}: {list(row.values)}"
    return None


VALUE_NEW_TO_ROW = Invariant("replaces a value by one its row does not hold", _value_new_to_row)


def _rows_reordered(example, table, out):
    if sorted(out.table.rows, key=repr) != sorted(table.rows, key=repr):
        return "the rows are not the same rows"
    if out.table.rows == table.rows:
        return "the order did not change"
    return None


ROWS_REORDERED = Invariant("reorders the rows and nothing else", _rows_reordered)


def _premise_replaced(example, table, out):
    return None if not same_table(out.table, table) else "the premise is the gold table"


PREMISE_REPLACED = Invariant("replaces the premise", _premise_replaced)


# The invariants every table probe that edits rows declares (deletion, insertion, update, ...).
TABLE_EDIT: tuple[Invariant, ...] = (HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, CHANGES_SOMETHING)
# ... and every probe that edits the hypothesis by recorded character spans.
HYPOTHESIS_EDIT: tuple[Invariant, ...] = (TABLE_KEPT, EDITS_REPRODUCE, CLEAN_SPACING)


# ---------------------------------------------------------------- record edits (relational tables)
# Read duck-typed (header, records, source_records), so this module imports no dataset's table.


def replay_record_edits(table, provenance):
    """The relational table the provenance says the probe made from the gold `table`: a deleted
    record (index into the gold table), an inserted one (index into the table then), an updated
    cell, then a new order of the records and of the columns. ValueError/IndexError when the record
    does not fit the table."""
    records, sources = list(table.records), list(table.source_records)
    if "deleted_record" in provenance:
        gone = provenance["deleted_record"]
        if list(records[gone["index"]]) != gone["cells"] or sources[gone["index"]] != gone["source"]:
            raise ValueError(f"deleted record {gone['index']} is {list(records[gone['index']])}, not {gone['cells']}")
        del records[gone["index"]], sources[gone["index"]]
    if "inserted_record" in provenance:
        new = provenance["inserted_record"]
        if not 0 <= new["index"] <= len(records):
            raise IndexError(f"insertion at {new['index']} in a table of {len(records)} records")
        records.insert(new["index"], tuple(new["cells"]))
        sources.insert(new["index"], None)
    if "updated_cell" in provenance:
        cell = provenance["updated_cell"]
        record = list(records[cell["record"]])
        if record[cell["column"]] != cell["old"] or table.header[cell["column"]] != cell["name"]:
            raise ValueError(
                f"cell {cell['record']}/{cell['column']} holds {record[cell['column']]!r}, not {cell['old']!r}"
            )
        record[cell["column"]] = cell["new"]
        records[cell["record"]] = tuple(record)
    if "record_order" in provenance:
        order = provenance["record_order"]
        if sorted(order) != list(range(len(records))):
            raise ValueError(f"record order {order} is not a permutation of {len(records)} records")
        records, sources = [records[i] for i in order], [sources[i] for i in order]
    replayed = table.with_records(records, sources)
    if "column_order" in provenance:
        order = provenance["column_order"]
        if sorted(order) != list(range(len(table.header))):
            raise ValueError(f"column order {order} is not a permutation of {len(table.header)} columns")
        replayed = replayed.with_columns(order)
    return replayed


def _record_edits_replay(example, table, out):
    try:
        replayed = replay_record_edits(table, out.provenance)
    except (KeyError, IndexError, ValueError) as error:
        return f"the recorded record edits do not fit the table: {error}"
    if replayed != out.table:
        return "the recorded record edits do not give the new table"
    if (replayed.header, replayed.records) == (table.header, table.records):
        return "the table did not change"
    return None


RECORD_EDITS_REPLAY = Invariant("its recorded record edits turn the table into the new one", _record_edits_replay)


def _records_reordered(example, table, out):
    if out.table.header != table.header or sorted(out.table.records) != sorted(table.records):
        return "the records are not the same records under the same header"
    return "the order did not change" if out.table.records == table.records else None


RECORDS_REORDERED = Invariant("reorders the records and nothing else", _records_reordered)


def _columns_of(table) -> list:
    return sorted((name, tuple(record[j] for record in table.records)) for j, name in enumerate(table.header))


def _columns_reordered(example, table, out):
    if len(out.table.records) != len(table.records) or _columns_of(out.table) != _columns_of(table):
        return "the columns are not the same columns (header and cells)"
    if out.table.source_records != table.source_records:
        return "the records moved"
    return "the order did not change" if out.table.header == table.header else None


COLUMNS_REORDERED = Invariant("reorders the columns and nothing else", _columns_reordered)


def _inserted_record_new(example, table, out):
    inserted = out.provenance.get("inserted_record")
    if inserted is None:
        return "no inserted record recorded"
    if tuple(inserted["cells"]) in set(table.records):
        return f"the inserted record copies an existing one: {inserted['cells']}"
    return None


INSERTED_RECORD_NEW = Invariant("inserts a record that copies none of the table's", _inserted_record_new)


def _expects_gold(example, table, out):
    return None if out.expected == example.label else f"expected {out.expected} for gold {example.label}"


EXPECTS_GOLD = Invariant("expects the gold label", _expects_gold)

# The invariants of every probe that edits a relational table's records or cells.
RECORD_EDIT: tuple[Invariant, ...] = (HYPOTHESIS_KEPT, RECORD_EDITS_REPLAY)
# ---------------------------------------------------------------- statement probes of relational tables


def same_relational_table(a, b) -> bool:
    """Title, header and records equal (a RelationalTable has records, not key -> values rows)."""
    return (a.title, tuple(a.header), tuple(a.records)) == (b.title, tuple(b.header), tuple(b.records))


def _keeps_relational_table(example, table, out):
    return None if same_relational_table(out.table, table) else "the table changed"


RELATIONAL_TABLE_KEPT = Invariant("leaves the relational table as it was", _keeps_relational_table)


def _relational_premise_replaced(example, table, out):
    return None if not same_relational_table(out.table, table) else "the premise is the gold table"


RELATIONAL_PREMISE_REPLACED = Invariant("replaces the relational premise", _relational_premise_replaced)


def _premise_empty(example, table, out):
    if out.table.header or out.table.records or out.table.title:
        return f"the premise has {len(out.table.header)} columns, {len(out.table.records)} records, title {out.table.title!r}"
    return None


PREMISE_EMPTY = Invariant("the premise is empty (no title, header or records)", _premise_empty)


def _header_differs(example, table, out):
    if out.table.table_id == table.table_id or tuple(out.table.header) == tuple(table.header):
        return f"the premise {out.table.table_id} has the gold table's id or header"
    return None


HEADER_DIFFERS = Invariant("the premise is another table, with another header", _header_differs)


def _whole_tokens(text: str, phrase: str) -> bool:
    tokens, wanted = text.split(), phrase.split()
    return any(tokens[i : i + len(wanted)] == wanted for i in range(len(tokens) - len(wanted) + 1))


def _rename_replays(example, table, out):
    """The recorded cell renames turn the gold table into the new one; the new name is in no cell or
    title of the gold table; the old name is left as whole tokens in no cell, title or statement."""
    old, new = out.provenance.get("old"), out.provenance.get("new")
    if not old or not new:
        return "no renamed entity recorded"
    records = [list(record) for record in table.records]
    for cell in out.provenance.get("table_cells", []):
        if records[cell["record"]][cell["column"]] != cell["old"]:
            return f"cell {cell['record']}/{cell['column']} holds {records[cell['record']][cell['column']]!r}, not {cell['old']!r}"
        records[cell["record"]][cell["column"]] = cell["new"]
    title = out.provenance.get("title", {}).get("new", table.title)
    if (title, tuple(table.header), tuple(map(tuple, records))) != (
        out.table.title,
        tuple(out.table.header),
        tuple(out.table.records),
    ):
        return "the recorded renames do not give the new table"
    if any(new in cell for record in table.records for cell in record) or new in table.title:
        return f"the new name {new!r} is already in the gold table"
    texts = [cell for record in out.table.records for cell in record] + [out.table.title, out.hypothesis]
    if any(_whole_tokens(text, old) for text in texts):
        return f"{old!r} is still named after the rename"
    return None


RENAME_REPLAYS = Invariant("renames one entity consistently in the table and the statement", _rename_replays)


def _tokenised_spacing(example, table, out):
    """A tokenised dataset writes " , " and " ." itself, so only the spacing of tokens is
    checked: single spaces, none at either end, something left."""
    text = out.hypothesis
    if not text.strip() or text != text.strip() or "  " in text:
        return f"not single-spaced tokens: {text!r}"
    return None


TOKENISED_SPACING = Invariant("keeps the statement single-spaced tokens", _tokenised_spacing)

# Every probe of a relational table that edits the statement by recorded character spans.
STATEMENT_EDIT: tuple[Invariant, ...] = (RELATIONAL_TABLE_KEPT, EDITS_REPRODUCE, TOKENISED_SPACING)
# The counterfactual rename: the statement's edits and the table's, together.
RENAME_EDIT: tuple[Invariant, ...] = (RENAME_REPLAYS, EDITS_REPRODUCE, TOKENISED_SPACING)
