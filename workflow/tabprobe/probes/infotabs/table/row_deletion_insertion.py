"""Delete a random row, then insert a row with a key the original table lacked, from a table of
the same category (paper appendix Table 17). The composed rule is this project's reading."""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, PaperNumbers, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.table_edits import INSERTED_KEYS_NEW, delete_row, insert_new_key_row
from tabprobe.probes.invariants import TABLE_EDIT
from tabprobe.probes.transitions import PROJECT, transition_rule


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    deleted, deletion = delete_row(table, ctx.rng)
    # The new key must be unrelated to the original table's keys too (the deleted one included),
    # or this would be a row update.
    inserted, insertion = insert_new_key_row(deleted, ctx, against=table)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance={**deletion, **insertion})]


# Which changes of prediction the edit allows (this project's reading; the paper names only some prohibited transitions).
RULE = transition_rule("row_deletion_insertion", PROJECT, E="EN", N="ENC", C="CN")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 11",
    table="Table 17",
    invalid_transition_pct={
        "E": {"alpha1": 3.02, "alpha2": 6.53, "alpha3": 4.16},
        "N": {"alpha1": 0.0, "alpha2": 0.0, "alpha3": 0.0},
        "C": {"alpha1": 9.81, "alpha2": 7.88, "alpha3": 6.71},
    },
)


PROBE = Probe(
    name="row_deletion_insertion",
    description="Delete one random row, then insert a row with a new key from a twin table.",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="appendix Table 17",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
