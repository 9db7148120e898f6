"""TabFact's identity probe: the unperturbed statements with their tables, which every TabFact
probe is compared with (InfoTabS has `original`). A probe belongs to one dataset, so TabFact's
baseline is a probe of its own: its splits are TabFact's (the test set's simple and complex
halves, and `bootstrap`, the statements of the human-written programs)."""

from tabprobe.probes import original
from tabprobe.probes.base import Probe
from tabprobe.probes.invariants import HYPOTHESIS_KEPT, RELATIONAL_TABLE_KEPT
from tabprobe.probes.record_edits import TABFACT_PROBE

PROBE = Probe(
    name="tf_original",
    description="TabFact: the gold statements and tables, unchanged.",
    apply=original.apply,  # the identity: it does not read the table's type
    judged_by="expected",
    invariants=(HYPOTHESIS_KEPT, RELATIONAL_TABLE_KEPT),
    **TABFACT_PROBE,
)
