"""The paper's hand-made label-flipped counterfactual tables (section 6, Tables 7-8): for a gold
ENTAIL or CONTRADICT example, the table a person edited so that its label flips (E -> C or
C -> E), the hypothesis kept (tabprobe.data.infotabs.counterfactuals reads and checks the release). The
probe finds the example's pair in the split's set; it perturbs only examples the people edited."""

from tabprobe.data.infobox.table import normalised
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, Invariant, same_table


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    made = ctx.need("human_counterfactuals").get((example.table_id, example.hypothesis), [])
    if not made:
        raise NotApplicable("no hand-made counterfactual of this example in the release")
    if any(pair.label != example.label for pair in made):
        raise NotApplicable("the hand-made pair has another gold label than the example")
    return [
        ProbeExample(
            example.hypothesis,
            pair.table,
            expected=pair.expected,
            provenance={
                "made_by": "human",
                "worker": pair.worker,
                "source": pair.source,
                "modified_table": pair.modified_table_id,
                "direction": f"{example.label}->{pair.expected}",
                "changed_rows": [row.key for row in pair.table.rows if row not in table.rows],
            },
        )
        for pair in made
    ]


def _edits_the_table(example, table, out):
    return "the table is the original one" if same_table(out.table, table) else None


def _same_subject(example, table, out):
    """A person edited values, not which table it is: its title stays, and most of its keys."""
    if out.table.title != table.title:
        return f"the title changed to {out.table.title!r}"
    keys = {normalised(key) for key in table.keys}
    kept = sum(1 for row in out.table.rows if normalised(row.key) in keys)
    return None if kept * 2 >= len(table.rows) else f"only {kept} of {len(table.rows)} keys kept: another table"


PROBE = Probe(
    name="cf_human",
    description="The paper's hand-made counterfactual table of the example: edited by a person so the label flips.",
    apply=apply,
    judged_by="expected",
    paper_reference="section 6, Tables 7-8 and 12 (human-made, utahnlp/table_probing)",
    labels=frozenset({"E", "C"}),
    label_change="flipped",
    family="counterfactual",
    needs=frozenset({"human_counterfactuals"}),
    invariants=(
        HYPOTHESIS_KEPT,
        Invariant("edits the table", _edits_the_table),
        Invariant("keeps the table's subject", _same_subject),
    ),
)
