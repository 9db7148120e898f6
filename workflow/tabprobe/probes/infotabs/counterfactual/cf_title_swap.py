"""Counterfactual title swap (paper section 6, Figure 6, Table 7 "label preserved").

Tables of the split are paired (seeded, within a category where possible); each table takes
its partner's title, and every hypothesis of it names the partner's subject instead of its
own. The rows, which decide the label, are unchanged, so the gold label is kept; a model that
answers from what it knows about the named subject goes wrong. Hypotheses that never name
their subject are skipped and counted.
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.counterfactual.subject_swaps import (
    SUBJECT_RENAMED,
    same_subject,
    split_names,
    swap_mentions,
)
from tabprobe.probes.infotabs.evidence_edits import pair_tables, with_title
from tabprobe.probes.infotabs.titles import is_name_like
from tabprobe.probes.invariants import CLEAN_SPACING, EDITS_REPRODUCE


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    names = split_names(ctx)
    if "partners" not in ctx.shared:
        # Only subjects the split's hypotheses name by their whole name can stand in for another;
        # people are paired with people the hypotheses call by the same pronoun, within a category.
        nameable = {t: ctx.tables[t] for t in ctx.tables if "name" in names[t] and is_name_like(ctx.tables[t])}
        ctx.shared["partners"] = pair_tables(
            nameable,
            ctx.seed,
            "cf_title_swap",
            group=lambda t: f"{t.category or ''}/{names[t.table_id].get('gender', '-')}",
        )
    partner_id = ctx.shared["partners"].get(table.table_id)
    if partner_id is None:
        raise NotApplicable("no hypothesis of the split gives this table's subject its whole name")
    other = ctx.tables[partner_id]
    if same_subject(table, other, names):
        raise NotApplicable("the partner table is about the same subject")
    hypothesis, edits = swap_mentions(example.hypothesis, table, names[partner_id])
    counterfactual = with_title(table, other.title, f"{table.table_id}<{other.table_id}")
    return [
        ProbeExample(
            hypothesis,
            counterfactual,
            expected=example.label,
            provenance={"rule": "counterfactual_title_swap", "partner_table": other.table_id, "changes": edits},
        )
    ]


PROBE = Probe(
    name="cf_title_swap",
    description="Give the table another table's title and name that subject in the hypothesis.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6, Figure 6, Table 7",
    labels=frozenset({"E", "C"}),
    label_change="preserved",
    family="counterfactual",
    needs=frozenset({"parse"}),  # the split's hypotheses: how each subject is named
    invariants=(EDITS_REPRODUCE, CLEAN_SPACING, SUBJECT_RENAMED),
)
