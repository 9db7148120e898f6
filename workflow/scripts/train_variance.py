from tabprobe import logs
from tabprobe.inoculation.variance import train_variance

logs.to_file(snakemake.log[0])
train_variance(
    checkpoint=snakemake.input.checkpoint,
    train_path=snakemake.input.train,
    train_tables_path=snakemake.input.train_tables,
    dev_path=snakemake.input.dev,
    dev_tables_path=snakemake.input.dev_tables,
    out=snakemake.output[0],
    resample=int(snakemake.wildcards.resample),
    size=int(snakemake.wildcards.size),
    settings=snakemake.params.settings,
    model=snakemake.params.model,
    seed=snakemake.params.seed,
    threads=snakemake.threads,
)
