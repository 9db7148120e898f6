"""The report's parts: the paper's dimensions, whose slugs name the figure folders and the
`snakemake --report` categories, and the part each probe's numbers go in. Kept free of heavy
imports (the report package's face imports nothing): the Snakefile reads it."""

from __future__ import annotations

from tabprobe.probes import Probe

# The paper's dimensions, in its order, then the probes from the other papers. The slug names
# the folder of a part's figures (results/report/figures/<slug>/) and its `snakemake --report`
# category.
DIMENSIONS = {
    "summary": "Summary",
    "artifacts": "Annotation artifacts (paper section 4)",
    "evidence": "Evidence selection (paper section 5)",
    "counterfactuals": "Pre-trained knowledge: counterfactuals (paper section 6)",
    "inoculation": "Inoculation (paper section 7)",
    "numeric": "Numeric probes",
    "external": "External probe sets",
    "other": "Other probes",
}
# Each part's opening paragraph ("{paper}": the title of the paper's dataset, Dataset.title).
DIMENSION_INTROS = {
    "artifacts": "Does the model answer from the hypothesis alone? Hypothesis edits that keep or flip the label "
    "(paper Table 4) and the {paper} premise controls.",
    "evidence": "Does the model read the rows that hold the evidence? Table perturbations judged by transition "
    "rules (section 5.1: Tables 5, 13-15, 17 and their graphs), deleting the relevant and irrelevant "
    "rows (section 5.2: Tables 6 and 16) and the rows whose deletion moves the prediction (section 5.3).",
    "counterfactuals": "Does the model answer from what it memorised in pre-training? Tables changed so they no longer "
    "match the world (Tables 7 and 8).",
    "inoculation": "Can a few challenge examples teach the model? It is fine-tuned further on 100, 200 and 300 of them "
    "and tested again on the challenge set and on the original test sets, and each result is classified "
    "into Liu et al.'s outcomes: 1, the gap closes; 2, nothing changes; 3, the challenge set improves "
    "while the original test set degrades.",
}


def dimension_of(probe: Probe) -> str:
    """The part of the report a probe's numbers go in."""
    if probe.family in ("hypothesis", "premise_control"):
        return "artifacts"
    if probe.family == "counterfactual":
        return "counterfactuals"
    if probe.family in ("numeric", "external"):
        return probe.family
    if probe.judged_by == "expected":
        return "other"
    return "evidence"  # table perturbations, relevant rows, evidence selection
