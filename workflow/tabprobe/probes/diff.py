"""What a probe changed: an original example and its perturbation side by side.

The diff is computed from the two examples themselves (tables row by row, hypotheses word by
word), not from a probe's provenance, so it shows the change of any probe the same way,
including a user's new probe and an external probe set. The report's failing examples and
`tabprobe show` both draw from it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from tabprobe.data.infobox.table import Row
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import AnyTable, table_from_arrow

RowStatus = Literal["kept", "moved", "changed", "deleted", "inserted"]
SegmentKind = Literal["same", "old", "new"]


@dataclass(frozen=True)
class RowChange:
    """A row of an infobox (a key and its values), or a record of a relational table (no
    key, its cells under the table's header)."""

    status: RowStatus
    key: str
    values: tuple[str, ...]  # as the model sees it; the deleted values for a deleted row
    old_values: tuple[str, ...] = ()  # "changed" rows: the values before
    old_index: int | None = None  # position in the original table (None for inserted rows)


@dataclass(frozen=True)
class TableChange:
    old_title: str
    new_title: str
    rows: tuple[RowChange, ...]  # the perturbed table's order, deleted rows where they stood
    # A relational table's column names, after and before (a probe may reorder them); empty for an
    # infobox, whose rows carry their keys.
    header: tuple[str, ...] = ()
    old_header: tuple[str, ...] = ()

    @property
    def relational(self) -> bool:
        return bool(self.header or self.old_header)

    @property
    def changed(self) -> bool:
        return (
            self.old_title != self.new_title
            or self.header != self.old_header
            or any(r.status != "kept" for r in self.rows)
        )


@dataclass(frozen=True)
class ExampleChange:
    """One probe example beside the gold example it was made from."""

    uid: str
    orig_uid: str
    probe: str
    gold: str  # gold label of the original example
    expected: str | None  # label the probe expects; None when judged by transition rules
    hypothesis: tuple[tuple[SegmentKind, str], ...]  # word diff, original -> perturbed
    table: TableChange
    provenance: Mapping = field(default_factory=dict)
    # The model's predictions, when shown for a model: on the original and on the perturbation.
    original_pred: str | None = None
    pred: str | None = None
    reason: str | None = None  # why this is a failure, when shown as one (tabprobe.report.failures)
    has_original: bool = True  # False: an external line paired with no gold example, shown as given

    @property
    def old_hypothesis(self) -> str:
        return "".join(text for kind, text in self.hypothesis if kind != "new")

    @property
    def new_hypothesis(self) -> str:
        return "".join(text for kind, text in self.hypothesis if kind != "old")

    @property
    def premise_note(self) -> str | None:
        """What the model saw instead of its table, when a probe replaced the premise wholesale."""
        note = PREMISE_NOTES.get(self.provenance.get("premise"))
        return note.format(from_table=self.provenance.get("from_table", "?")) if note else None


# Words and punctuation, each with the spaces after it, so changed words separated by spaces
# form one replacement ("Despicable Me 3" -> "Dear White People", not three word swaps).
# Premise controls record how they replaced the premise (provenance "premise").
PREMISE_NOTES = {
    "none": "the model sees no premise at all (hypothesis only)",
    "swapped": "the table is replaced by another table of the split ({from_table})",
    "dummy": "the table is replaced by an uninformative constant table",
}

_TOKEN = re.compile(r"\s+|\w+\s*|[^\w\s]\s*")


def text_diff(before: str, after: str) -> tuple[tuple[SegmentKind, str], ...]:
    """Word-level diff: runs of unchanged, removed ("old") and added ("new") text. The "old"
    and "same" runs spell `before`, the "new" and "same" runs spell `after`."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    segments: list[tuple[SegmentKind, str]] = []

    def emit(kind: SegmentKind, tokens: Sequence[str]) -> None:
        text = "".join(tokens)
        if text:
            segments.append((kind, text))

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            emit("same", a[i1:i2])
        else:
            emit("old", a[i1:i2])
            emit("new", b[j1:j2])
    # Adjacent runs of one kind (a delete next to a replace) read as one.
    merged: list[tuple[SegmentKind, str]] = []
    for kind, text in segments:
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return tuple(merged)


def table_diff(before: AnyTable, after: AnyTable) -> TableChange:
    """Rows of `after` matched to rows of `before`: an identical row is kept (or moved, when
    the rows around it were reordered), a row under a key that lost a row is changed, the rest
    are inserted; rows of `before` left unmatched are deleted and shown where they stood. A
    relational table's records are matched by record_diff."""
    if isinstance(after, RelationalTable):
        return record_diff(before, after)
    unmatched: dict[Row, list[int]] = defaultdict(list)
    for index, row in enumerate(before.rows):
        unmatched[row].append(index)
    exact: list[int | None] = []
    for row in after.rows:
        exact.append(unmatched[row].pop(0) if unmatched[row] else None)
    left_over = sorted(i for indices in unmatched.values() for i in indices)
    by_key: dict[str, list[int]] = defaultdict(list)
    for index in left_over:
        by_key[before.rows[index].key].append(index)
    matched_old = [i for i in exact if i is not None]
    in_order = set(_longest_increasing(matched_old))

    changes: list[RowChange] = []
    used: set[int] = set(matched_old)
    for row, old in zip(after.rows, exact):
        if old is not None:
            changes.append(RowChange("kept" if old in in_order else "moved", row.key, row.values, old_index=old))
        elif by_key.get(row.key):
            old = by_key[row.key].pop(0)
            used.add(old)
            changes.append(RowChange("changed", row.key, row.values, before.rows[old].values, old_index=old))
        else:
            changes.append(RowChange("inserted", row.key, row.values))
    deleted = (RowChange("deleted", row.key, row.values, old_index=i) for i, row in enumerate(before.rows))
    return TableChange(before.title, after.title, _with_deleted(changes, deleted, used))


def record_diff(before: RelationalTable, after: RelationalTable) -> TableChange:
    """Records of `after` matched to those of `before` by the original record each one comes from
    (`source_records`, which a probe keeps through its edits): the same cells under the same column
    names are kept (or moved, when the records around it were reordered), other cells changed; a
    record of no original one is inserted, an original record no record comes from deleted and shown
    where it stood. Cells are shown under `after`'s header, so reordered columns change no record."""
    at = {source: index for index, source in enumerate(before.source_records)}
    columns = {name: position for position, name in reversed(list(enumerate(before.header)))}

    def cells(index: int) -> tuple[str, ...]:
        record = before.records[index]
        return tuple(record[columns[name]] if name in columns else "" for name in after.header)

    matched = [at.get(source) if source is not None else None for source in after.source_records]
    in_order = set(_longest_increasing([i for i in matched if i is not None]))
    changes: list[RowChange] = []
    for record, old in zip(after.records, matched):
        if old is None:
            changes.append(RowChange("inserted", "", record))
        elif cells(old) != record:
            changes.append(RowChange("changed", "", record, cells(old), old_index=old))
        else:
            changes.append(RowChange("kept" if old in in_order else "moved", "", record, old_index=old))
    deleted = (RowChange("deleted", "", cells(i), old_index=i) for i in range(len(before.records)))
    rows = _with_deleted(changes, deleted, {i for i in matched if i is not None})
    return TableChange(before.title, after.title, rows, after.header, before.header)


def _with_deleted(changes: list[RowChange], deleted, used: set[int]) -> tuple[RowChange, ...]:
    """`changes` with each row of `deleted` (every row of the original table, as shown deleted)
    whose index is not in `used` placed just before the first shown row that followed it in the
    original table."""
    for row in (r for r in deleted if r.old_index not in used):
        # Anchored on rows that kept their order (a moved row stands elsewhere) and on the
        # deleted rows already placed, so deleted neighbours keep their order.
        position = next(
            (p for p, c in enumerate(changes) if c.status in ("kept", "deleted") and c.old_index > row.old_index),
            len(changes),
        )
        changes.insert(position, row)
    return tuple(changes)


def _longest_increasing(sequence: Sequence[int]) -> list[int]:
    """The longest increasing subsequence (values): the rows that kept their relative order."""
    tails: list[int] = []  # index into sequence of the smallest tail of each length
    parent: list[int | None] = [None] * len(sequence)
    for i, value in enumerate(sequence):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if sequence[tails[mid]] < value:
                lo = mid + 1
            else:
                hi = mid
        parent[i] = tails[lo - 1] if lo else None
        if lo == len(tails):
            tails.append(i)
        else:
            tails[lo] = i
    out: list[int] = []
    i = tails[-1] if tails else None
    while i is not None:
        out.append(sequence[i])
        i = parent[i]
    return out[::-1]


def example_changes(
    probe_rows: Sequence[Mapping],
    originals: Mapping[str, Mapping],
    tables: Mapping[str, AnyTable],
    predictions: Mapping[str, str] | None = None,
    original_predictions: Mapping[str, str] | None = None,
) -> list[ExampleChange]:
    """ExampleChange for each probe row (`infobox.PROBE_EXAMPLES` records). `originals` maps a
    gold uid to its example record, `tables` a table id to the split's table. A row whose
    original is unknown (an unpaired line of an external set) is shown against itself."""
    out = []
    for row in probe_rows:
        perturbed = table_from_arrow(row["table"])
        original = originals.get(row["orig_uid"])
        has_original = original is not None and original["table_id"] in tables
        if has_original:
            before_table, before_hypothesis = tables[original["table_id"]], original["hypothesis"]
        else:
            before_table, before_hypothesis = perturbed, row["hypothesis"]
        provenance = json.loads(row["provenance"])
        if provenance.get("premise") in PREMISE_NOTES:
            # A premise replaced wholesale (another table, a constant one, none) is shown as the
            # model sees it, not as a row-by-row diff of two unrelated tables.
            before_table = perturbed
        out.append(
            ExampleChange(
                uid=row["uid"],
                orig_uid=row["orig_uid"],
                probe=row["probe"],
                gold=row["label"],
                expected=row["expected"],
                hypothesis=text_diff(before_hypothesis, row["hypothesis"]),
                table=table_diff(before_table, perturbed),
                provenance=provenance,
                has_original=has_original,
                original_pred=(original_predictions or {}).get(row["orig_uid"]),
                pred=(predictions or {}).get(row["uid"]),
            )
        )
    return out
