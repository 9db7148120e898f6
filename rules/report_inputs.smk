# The input functions of report.smk: every file of the run that the results table and the report
# read, and the report's showcase (tabprobe.config.derived). The jobs get {name: path} mappings,
# never a name to read back out of a path.

from tabprobe.report.dimensions import DIMENSIONS


def relevance_summaries():
    return {split: layout.relevance_summary(split) for split in derived.relevance_splits(config)}


def inference_stats():
    """{model: infer_nli's stats files of every probe and split it answers (derived.model_runs)}."""
    stats = {model: [] for model in MODELS}
    for model, probe, split in derived.model_runs(config):
        stats[model].append(layout.inference_stats(model, probe, split))
    return stats


def inoculation_summaries():
    """{experiment: score_inoculation's summary}."""
    if not INOCULATION:
        return {}
    return {e: layout.inoculation_summary(INOCULATION["model"], e) for e in INOCULATION_EXPERIMENTS}


def variance_summaries():
    """{model: collect_variance's summary}."""
    return {VARIANCE["model"]: layout.variance_summary(VARIANCE["model"])} if VARIANCE else {}


def get_results_inputs(wildcards):
    return {
        "scores": [layout.scores(m, p, s) for m, p, s in derived.model_runs(config)]
        + [layout.pooled_scores(t, m, c, s) for m in PAPER_MODELS for t, c, s in derived.pooled_runs(config)]
        + [p for p in inoculation_outputs() + variance_outputs() if p.endswith(".parquet")],
        "stats": [path for paths in inference_stats().values() for path in paths],
        "coverage": [layout.coverage(p, s) for p, s in derived.probe_runs(config)],
        "relevance": list(relevance_summaries().values()),
    }


def showcase():
    return derived.showcase(config)


def get_report_inputs(wildcards):
    return {
        "results": layout.results_table(),
        "run": layout.run_record(),
        "coverage": [layout.coverage(p, s) for p, s in derived.probe_runs(config)],
        "relevance": list(relevance_summaries().values()),
        "showcase": sorted({f for entry in showcase().values() for f in entry["files"].values()}),
        "inoculation": list(inoculation_summaries().values()),
        "variance": list(variance_summaries().values()),
    }


def get_final_output():
    return [layout.report_html(), layout.report_markdown()]


def report_category(wildcards):
    """The `snakemake --report` category of a figure: the report part it belongs to."""
    return DIMENSIONS[wildcards.dimension]
