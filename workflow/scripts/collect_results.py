from tabprobe import logs
from tabprobe.scoring.results import collect_results

logs.to_file(snakemake.log[0])
collect_results(
    score_paths=snakemake.input.scores,
    inference_stats=snakemake.params.stats,
    coverage_paths=snakemake.input.coverage,
    relevance_summaries=snakemake.params.relevance,
    parquet_out=snakemake.output.parquet,
    csv_out=snakemake.output.csv,
    run_out=snakemake.output.run,
    min_examples=snakemake.params.min_examples,
    # Read, not a param: run.json records the config as run without making a change of how a
    # path is spelled re-run anything.
    config=snakemake.config,
)
