"""Counterfactual title swap (paper section 6, Figure 6, Table 7 "label preserved").

Tables of the split are paired (seeded, within a category where possible); each table takes
its partner's title, and every hypothesis of it names the partner's subject instead of its
own. The rows, which decide the label, are unchanged, so the gold label is kept; a model that
answers from what it knows about the named subject goes wrong. Hypotheses that never name
their subject are skipped and counted.
"""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from .evidence_edits import pair_tables, swap_title_mentions, with_title
from ..table import Table


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    if "partners" not in ctx.shared:
        ctx.shared["partners"] = pair_tables(ctx.tables, ctx.seed, "cf_title_swap")
    partner_id = ctx.shared["partners"].get(table.table_id)
    if partner_id is None:
        raise NotApplicable("the split has no other table")
    other = ctx.tables[partner_id]
    hypothesis, edits = swap_title_mentions(example, table, other)
    counterfactual = with_title(table, other.title, f"{table.table_id}<{other.table_id}")
    return [ProbeExample(hypothesis, counterfactual, expected=example.label, provenance={
        "rule": "counterfactual_title_swap", "partner_table": other.table_id, "changes": edits})]


PROBE = Probe(
    name="cf_title_swap",
    description="Give the table another table's title and name that subject in the hypothesis.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6, Figure 6, Table 7",
    labels=frozenset({"E", "C"}),
    label_change="preserved",
    family="counterfactual",
)
