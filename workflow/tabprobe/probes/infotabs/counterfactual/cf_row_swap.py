"""Counterfactual row swap (paper section 6, Figure 5, Table 7 "label preserved").

For a hypothesis of table B, take another table A of the split (same category preferred) that
has every key of B and other values in the rows the hypothesis needs, give A all of B's rows
(A's rows under keys B lacks stay where they cannot contradict B's), and put A's name where the hypothesis names B. The
hypothesis now speaks about A, whose rows say what B's did, so the gold label is kept; but the
facts no longer match the real world, so a model that answers from memory instead of the table
goes wrong. All of B's rows move, not only the relevant ones: an automatic relevance source
misses rows, and a needed row left as A's own would decide the label instead. Hypotheses that
never name their subject, or talk about its name, are skipped and counted.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.counterfactual.subject_swaps import (
    SUBJECT_RENAMED,
    same_subject,
    split_names,
    swap_mentions,
)
from tabprobe.probes.infotabs.evidence_edits import relevant_indices, swap_rows_in, with_title
from tabprobe.probes.infotabs.table_edits import insertable, of_its_time
from tabprobe.probes.infotabs.titles import is_name_like
from tabprobe.probes.invariants import CLEAN_SPACING, EDITS_REPRODUCE, Invariant


def _partners(table: Table, relevant: set[str], ctx: ProbeContext) -> list[Table]:
    """Tables that hold every key of `table` with other values in some relevant row, and whose
    subject the split's hypotheses name by its whole name; those of the same category where
    there are any."""
    names = split_names(ctx)
    own = {row.key: row.values for row in table.rows}
    fits = []
    for other_id in sorted(ctx.tables):
        other = ctx.tables[other_id]
        if (
            other_id == table.table_id
            or "name" not in names[other_id]
            or not is_name_like(other)
            or same_subject(table, other, names)
            or names[other_id].get("gender", "-") != names[table.table_id].get("gender", "-")
        ):
            continue
        theirs = {row.key: row.values for row in other.rows}
        if own.keys() <= theirs.keys() and any(theirs[k] != own[k] for k in relevant):
            fits.append(other)
    same_category = [t for t in fits if t.category is not None and t.category == table.category]
    return same_category or fits


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    relevant = {table.rows[i].key for i in relevant_indices(example, table, ctx)}
    if len(set(table.keys)) != len(table.keys):
        raise NotApplicable("the table repeats a key")
    partners = _partners(table, relevant, ctx)
    if not partners:
        raise NotApplicable("no other table has all of this table's keys")
    other = partners[int(ctx.rng.integers(len(partners)))]
    hypothesis, edits = swap_mentions(example.hypothesis, table, split_names(ctx)[other.table_id])
    swapped = swap_rows_in(other, table, set(table.keys))
    # The partner's own rows under keys B lacks stay only where they cannot contradict B's
    # (table_edits.insertable: no date, no life or identity fact, no key naming one of B's), and
    # only from a partner of B's time: a 1955 film keeps no music by a composer born in 1971.
    extras = of_its_time(table, other)
    kept = [row for row in swapped.rows if row.key in set(table.keys) or (extras and insertable(row, table))]
    counterfactual = with_title(swapped.with_rows(kept), other.title, f"{other.table_id}<{table.table_id}")
    return [
        ProbeExample(
            hypothesis,
            counterfactual,
            expected=example.label,
            provenance={
                "rule": "counterfactual_row_swap",
                "partner_table": other.table_id,
                "swapped_keys": sorted(table.keys),
                "relevant_keys": sorted(relevant),
                "changes": edits,
                "partner_rows_dropped": [row.key for row in swapped.rows if row not in kept],
            },
        )
    ]


def _carries_every_row(example, table, out):
    """Every row of the gold table is in the counterfactual table, as it was."""
    rows = set(out.table.rows)
    missing = [row.key for row in table.rows if row not in rows]
    return f"rows {missing} of the gold table are not in the counterfactual" if missing else None


PROBE = Probe(
    name="cf_row_swap",
    description="Move the table's rows into another table with the same keys and name that table's subject instead.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6, Figure 5, Table 7",
    labels=frozenset({"E", "C"}),
    label_change="preserved",
    family="counterfactual",
    needs=frozenset({"parse", "relevance"}),  # the split's hypotheses: how each subject is named
    invariants=(
        EDITS_REPRODUCE,
        CLEAN_SPACING,
        SUBJECT_RENAMED,
        Invariant("carries every row of the gold table", _carries_every_row),
    ),
)
