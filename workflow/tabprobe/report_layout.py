"""Where things go in the report: its parts (the paper's dimensions, whose slugs name the
figure folders and `snakemake --report` categories) and the split a probe's failing examples
and summary numbers come from. Kept free of heavy imports: the Snakefile reads it to build
the report rule's inputs."""

from __future__ import annotations

from typing import Iterable, Sequence

from .probes import Probe


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
DIMENSION_INTROS = {
    "artifacts": "Does the model answer from the hypothesis alone? Hypothesis edits that keep or flip the label "
                 "(paper Table 4) and the InfoTabS premise controls.",
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


# Where a probe's failing examples and summary numbers come from: the first split it ran on in
# this order (the paper's main test set first).
SHOWCASE_ORDER = ("alpha1", "alpha2", "alpha3", "dev", "train")


def showcase_split(splits: Iterable[str]) -> str:
    splits = set(splits)
    return next(s for s in SHOWCASE_ORDER if s in splits)


def showcase_inputs(probe: str, split: str, models: Sequence[str], with_original: bool) -> dict[str, str]:
    """The files the failing examples of a probe are drawn from (paths as the rules write them):
    the probe's examples, the split's gold examples and tables, and each model's predictions on
    the probe and, `with_original`, on the unperturbed split."""
    files = {"probe": f"results/probes/{probe}/{split}.parquet", "examples": f"results/data/{split}.parquet",
             "tables": f"results/data/{split}.tables.parquet"}
    for model in models:
        files[f"predictions:{model}"] = f"results/predictions/{model}/{probe}/{split}.parquet"
        if with_original:
            files[f"original:{model}"] = f"results/predictions/{model}/original/{split}.parquet"
    return files
