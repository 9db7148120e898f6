from tabprobe import logs, stages
from tabprobe.config import infotabs_root

logs.to_file(snakemake.log[0])
stages.assemble_report(
    score_paths=list(snakemake.input.scores) + list(snakemake.input.pooled),
    coverage_paths=snakemake.input.coverage,
    inference_stats=snakemake.input.stats,
    html_out=snakemake.output.html,
    markdown_out=snakemake.output.markdown,
    figures_out=snakemake.output.figures,
    models=snakemake.params.models,
    showcase=snakemake.params.showcase,
    inoculation_scores=snakemake.input.inoculation,
    inoculation_plan=snakemake.params.inoculation,
    variance_results=snakemake.input.variance,
    splits=snakemake.params.splits,
    probes=snakemake.params.probes,
    data_source=infotabs_root(snakemake.config),  # not a param: how the path is spelled re-runs nothing
    seed=snakemake.params.seed,
    scoring_settings=snakemake.params.scoring,
    relevance_summaries=snakemake.input.relevance,
    externals=snakemake.params.externals,
    unverified_flips=snakemake.params.unverified_flips,
)
