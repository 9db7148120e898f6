# tabprobe: does a tabular NLI model reason from the evidence in its table?
# Stages: ingest each dataset -> generate probes -> infer -> score -> report. See README.md.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "rules/common.smk"
include: "rules/data_inputs.smk"
include: "rules/probe_inputs.smk"
include: "rules/model_inputs.smk"
include: "rules/scoring_inputs.smk"
include: "rules/inoculation_inputs.smk"
include: "rules/report_inputs.smk"
include: "rules/data.smk"
include: "rules/probes.smk"
include: "rules/models.smk"
include: "rules/scoring.smk"
include: "rules/inoculation.smk"
include: "rules/report.smk"


localrules:
    all,
    download_infotabs,
    download_counterfactuals,
    collect_results,
    collect_variance,
    assemble_report,


rule all:
    default_target: True
    input:
        get_final_output(),


onstart:
    # Served models whose jobs are about to run: their key, server, model name and scoring, checked
    # before any job (tabprobe.models.endpoint.check).
    from tabprobe.models.endpoint.check import check_before_run

    check_before_run(
        config["models"],
        {job.wildcards.model for job in workflow.dag.needrun_jobs() if job.rule.name == "query_endpoint"},
    )
    # On a Slurm run: say in the log when a submitted job can never start (tabprobe.slurm_queue).
    from snakemake.logging import logger
    from tabprobe import slurm_queue

    plugin = workflow.executor_plugin
    slurm_queue.watch_if_on_slurm(
        plugin.name if plugin else None,
        os.getcwd(),
        logger.error,
        [rule.name for rule in workflow.rules],
    )


onerror:
    # On a Slurm run: the end of each failed job's Slurm log, where the reason is (without
    # accounting the plugin says only "Detailed failure reason unavailable").
    from pathlib import Path
    from snakemake.logging import logger
    from tabprobe import slurm_failures, slurm_queue

    plugin = workflow.executor_plugin
    if plugin and plugin.name == "slurm":
        logs = log if isinstance(log, list) else [log]  # Snakemake 9 hands a list
        failed = slurm_failures.failed_jobs_report(
            "".join(Path(f).read_text(errors="replace") for f in logs),
            profile=slurm_queue.profile_in_use(sys.argv, dict(os.environ)),
            rules=[rule.name for rule in workflow.rules],
        )
        if failed:
            logger.error(failed)
