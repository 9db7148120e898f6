from tabprobe import logs
from tabprobe.inoculation.variance import score_variance

logs.to_file(snakemake.log[0])
score_variance(
    base=snakemake.wildcards.model,
    checkpoint=snakemake.input.checkpoint,
    resample=int(snakemake.wildcards.resample),
    size=int(snakemake.wildcards.size),
    test_path=snakemake.input.test,
    test_tables_path=snakemake.input.test_tables,
    out=snakemake.output[0],
    settings=snakemake.params.settings,
    model=snakemake.params.model,
    scoring_settings=snakemake.params.scoring,
    seed=snakemake.params.seed,
    threads=snakemake.threads,
)
