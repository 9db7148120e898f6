# The input functions of report.smk: every file of the run that the results table and the report
# read (tabprobe.config.report_inputs), the {name: path} mappings beside them and the report's
# showcase (tabprobe.config.derived). The jobs never read a name back out of a path.

from tabprobe.config import inoculation_inputs as experiments
from tabprobe.config import report_inputs
from tabprobe.report.dimensions import DIMENSIONS


def relevance_summaries():
    return derived.relevance_summaries(config)


def inference_stats():
    return derived.inference_stats(config)


def inoculation_summaries():
    return experiments.inoculation_summaries(config)


def variance_summaries():
    return experiments.variance_summaries(config)


def get_results_inputs(wildcards):
    return report_inputs.results_inputs(config)


def showcase():
    return derived.showcase(config)


def get_report_inputs(wildcards):
    return report_inputs.report_inputs(config)


def get_final_output():
    return [layout.report_html(), layout.report_markdown()]


def report_category(wildcards):
    """The `snakemake --report` category of a figure: the report part it belongs to."""
    return DIMENSIONS[wildcards.dimension]
