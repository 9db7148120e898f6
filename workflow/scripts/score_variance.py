from tabprobe import logs
from tabprobe.jobs.score_variance import score_variance

logs.to_file(snakemake.log[0])
score_variance(
    base=snakemake.wildcards.model,
    base_checkpoint=snakemake.input.checkpoint,
    checkpoints=snakemake.params.checkpoints,
    test_path=snakemake.input.test,
    test_tables_path=snakemake.input.test_tables,
    out=snakemake.output.scores,
    summary_out=snakemake.output.summary,
    settings=snakemake.params.settings,
    model=snakemake.params.model,
    scoring_settings=snakemake.params.scoring,
    seed=snakemake.params.seed,
    threads=snakemake.threads,
)
