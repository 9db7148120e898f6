from tabprobe import logs
from tabprobe.data.datasets import paper_data_root
from tabprobe.report.assemble import assemble_report

logs.to_file(snakemake.log[0])
assemble_report(
    results_path=snakemake.input.results,
    run_path=snakemake.input.run,
    coverage_paths=snakemake.input.coverage,
    html_out=snakemake.output.html,
    markdown_out=snakemake.output.markdown,
    figures_out=snakemake.output.figures,
    models=snakemake.params.models,
    showcase=snakemake.params.showcase,
    inoculation_summaries=snakemake.params.inoculation_summaries,
    inoculation_plan=snakemake.params.inoculation,
    variance_summaries=snakemake.params.variance_summaries,
    splits=snakemake.params.splits,
    probes=snakemake.params.probes,
    data_source=paper_data_root(snakemake.config),  # not a param: how the path is spelled re-runs nothing
    seed=snakemake.params.seed,
    scoring_settings=snakemake.params.scoring,
    relevance_summaries=snakemake.params.relevance_summaries,
    externals=snakemake.params.externals,
    unverified_flips=snakemake.params.unverified_flips,
)
