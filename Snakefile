# tabprobe: does a tabular NLI model reason from the evidence in its table?
# Stages: ingest InfoTabS -> generate probes -> infer -> score -> report. See README.md.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "rules/common.smk"
include: "rules/inoculation_inputs.smk"
include: "rules/data.smk"
include: "rules/probes.smk"
include: "rules/models.smk"
include: "rules/scoring.smk"
include: "rules/inoculation.smk"
include: "rules/report.smk"


localrules:
    all,
    download_infotabs,
    check_infotabs,
    collect_results,
    assemble_report,


rule all:
    default_target: True
    input:
        get_final_output(),
