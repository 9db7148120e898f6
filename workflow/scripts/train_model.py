from tabprobe import logs
from tabprobe.models.training import train_model

logs.to_file(snakemake.log[0])
train_model(
    train_path=snakemake.input.train,
    train_tables_path=snakemake.input.train_tables,
    dev_path=snakemake.input.dev,
    dev_tables_path=snakemake.input.dev_tables,
    out_dir=snakemake.output[0],
    premise=snakemake.params.premise,
    train_config=snakemake.params.train,
    seed=snakemake.params.seed,
    pair_order=snakemake.params.pair_order,
    threads=snakemake.threads,
)
