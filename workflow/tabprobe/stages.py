"""Every rule's job function, by the rule's name: the one place that says where a rule's work is
done. A rule's script (workflow/scripts/<rule>.py) imports this function and calls it; code that runs
one job outside Snakemake (the tests) calls `stages.<rule>(...)`, imported when first used.

A dataset's check and ingest rules (check_<dataset>, ingest_<dataset>: one pair per dataset) share
one script each, whose job looks the dataset's own function up in its declaration
(data/datasets.py, `Dataset.ingest`): here they are `check_dataset` and `ingest_dataset`. The
rules of the paper dataset's own data (its downloads, its relevance annotations and aligner, the
external probe sets given in its format) are its package's."""

from __future__ import annotations

import importlib

# rule -> the stage module holding its job function (named as the rule), by stage as in rules/.
RULE_MODULES = {
    # rules/data.smk
    "check_dataset": "data.ingest",
    "ingest_dataset": "data.ingest",
    "download_infotabs": "data.infotabs.download",
    "download_counterfactuals": "data.infotabs.counterfactuals",
    "find_relevant_rows": "data.infotabs.relevance",
    "ingest_external_probe": "data.infotabs.external",
    "parse_hypotheses": "data.parsing",
    # rules/probes.smk
    "generate_probe": "probes.generation",
    # rules/models.smk
    "init_model": "models.checkpoints",
    "train_model": "models.training",
    "select_shots": "models.shot_selection",
    "infer_nli": "models.predict",
    "query_endpoint": "models.endpoint.job",
    "unpack_gguf": "models.gguf_unpack",
    # rules/scoring.smk
    "score_probe": "scoring.probe_scores",
    "score_pooled_column": "scoring.pooled_columns",
    "collect_results": "scoring.results",
    # rules/inoculation.smk
    "inoculate": "inoculation.inoculate",
    "select_inoculation": "inoculation.inoculate",
    "score_inoculation": "inoculation.outcomes",
    "train_variance": "inoculation.variance",
    "score_variance": "inoculation.variance",
    "collect_variance": "inoculation.variance",
    # rules/report.smk
    "assemble_report": "report.assemble",
}


def __getattr__(name: str):
    if name not in RULE_MODULES:
        raise AttributeError(f"no rule's job is named {name!r} (tabprobe/stages.py: RULE_MODULES)")
    return getattr(importlib.import_module(f"{__package__}.{RULE_MODULES[name]}"), name)
