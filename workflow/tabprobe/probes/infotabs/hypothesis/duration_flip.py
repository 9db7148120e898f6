"""Duration edits that flip the label (paper section 4, Table 3: "a pop album with a length of 46
minutes" -> "56 minutes", ENTAIL -> CONTRADICT): a duration under a monotone word halved or
doubled against its monotone direction (ENTAIL <-> CONTRADICT, Table 2), and a bare amount of an
ENTAIL hypothesis changed (ENTAIL -> CONTRADICT).

Where the table gives the subject's length (Running time, Length, Duration) and the sentence
speaks of it, the new label is checked against that cell (`checked` in provenance); elsewhere
("has been performing for 23 years") the flip is the paper's half/twice heuristic, marked
`heuristic`, and waits for a person (docs/curation.md). Which durations it takes:
duration_preserve."""

from tabprobe.probes.base import Example, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.hypothesis.edits.durations import duration_probe
from tabprobe.probes.invariants import HYPOTHESIS_EDIT


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    return duration_probe(example, table, doc, ctx, flip=True)


PROBE = Probe(
    name="duration_flip",
    description="Halve or double a duration against its monotone word, or change a bare one (E <-> C; checked or heuristic).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 2-4",
    labels=frozenset({"E", "C"}),
    needs=frozenset({"parse"}),
    label_change="flipped",
    family="hypothesis",
    invariants=HYPOTHESIS_EDIT,
)
