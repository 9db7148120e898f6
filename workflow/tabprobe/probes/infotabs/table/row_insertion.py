"""Insert a row under a key the table lacks, from a table of the same kind (paper section 5.1,
appendix Table 13). New information cannot make E or C wrong: E and C must stay, N may go anywhere.

"New" is made strict (table_edits.insert_new_key_row): the row comes from a twin of the table
(same category, mostly the same keys), under a key its twins commonly have, naming nothing the
table's keys name, and carrying no date, identity, place, office or name that could clash with
what the table says. It is another subject's fact, so it may be false of this subject in the world,
as in the paper; the table's own rows, the hypothesis's evidence, are untouched.

One insertion is sampled here rather than listing every candidate (hundreds per table).
"""

from tabprobe.data.infobox.table import Table
from tabprobe.probes.base import Example, PaperNumbers, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.table_edits import INSERTED_KEYS_NEW, insert_new_key_row
from tabprobe.probes.invariants import TABLE_EDIT
from tabprobe.probes.transitions import PAPER, transition_rule


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    inserted, change = insert_new_key_row(table, ctx)
    return [ProbeExample(example.hypothesis, inserted, expected=None, provenance=change)]


# Which changes of prediction the edit allows (the paper's text).
RULE = transition_rule("row_insertion", PAPER, E="E", N="ENC", C="C")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 7",
    table="Table 13",
    invalid_transition_pct={
        "E": {"alpha1": 2.81, "alpha2": 4.99, "alpha3": 2.51},
        "N": {"alpha1": 0.0, "alpha2": 0.0, "alpha3": 0.0},
        "C": {"alpha1": 6.77, "alpha2": 6.54, "alpha3": 6.35},
    },
)


PROBE = Probe(
    name="row_insertion",
    description="Insert a row with a new key, taken from a twin table (same category, mostly the same keys).",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="section 5.1, appendix Table 13",
    invariants=(*TABLE_EDIT, INSERTED_KEYS_NEW),
)
