"""Counterfactual row swap (paper section 6, Figure 5, Table 7 "label preserved").

For a hypothesis of table B whose relevant rows are R, take another table A of the split that
has every key of R with different values, give A the values of B's rows R, and put A's name
where the hypothesis names B. The hypothesis now speaks about A, whose relevant rows say what
B's did, so the gold label is kept; but the facts no longer match the real world, so a model
that answers from memory instead of the table goes wrong. Partners of B's category are
preferred. Hypotheses that never name their subject are skipped and counted.
"""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .evidence_edits import relevant_indices, swap_rows_in, swap_title_mentions, with_title
from ..table import Table


def _partners(table: Table, keys: set[str], ctx: ProbeContext) -> list[Table]:
    own = {row.key: row.values for row in table.rows}
    fits = []
    for other_id in sorted(ctx.tables):
        other = ctx.tables[other_id]
        if other_id == table.table_id:
            continue
        theirs = {row.key: row.values for row in other.rows}
        if keys <= theirs.keys() and any(theirs[k] != own[k] for k in keys):
            fits.append(other)
    same_category = [t for t in fits if t.category is not None and t.category == table.category]
    return same_category or fits


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    keys = {table.rows[i].key for i in relevant_indices(example, table, ctx)}
    partners = _partners(table, keys, ctx)
    if not partners:
        raise NotApplicable("no other table has the relevant keys")
    other = partners[int(ctx.rng.integers(len(partners)))]
    hypothesis, edits = swap_title_mentions(example, table, other)
    counterfactual = with_title(swap_rows_in(other, table, keys), other.title, f"{other.table_id}<{table.table_id}")
    return [ProbeExample(hypothesis, counterfactual, expected=example.label, provenance={
        "rule": "counterfactual_row_swap", "partner_table": other.table_id, "swapped_keys": sorted(keys),
        "changes": edits})]


PROBE = Probe(
    name="cf_row_swap",
    description="Move the hypothesis's relevant rows into another table and name that table's subject instead.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6, Figure 5, Table 7",
    labels=frozenset({"E", "C"}),
    needs_relevance=True,
    label_change="preserved",
    family="counterfactual",
)
