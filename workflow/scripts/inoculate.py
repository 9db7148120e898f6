from tabprobe import logs
from tabprobe.inoculation.inoculate import inoculate

logs.to_file(snakemake.log[0])
inoculate(
    checkpoint=snakemake.input.checkpoint,
    challenge=snakemake.params.challenge,
    dev_path=snakemake.input.dev,
    dev_tables_path=snakemake.input.get("dev_tables"),
    out=snakemake.output[0],
    experiment=snakemake.wildcards.experiment,
    table=snakemake.params.table,
    size=int(snakemake.wildcards.size),
    sizes=snakemake.params.sizes,
    learning_rate=float(snakemake.wildcards.lr),
    settings=snakemake.params.settings,
    model=snakemake.params.model,
    seed=snakemake.params.seed,
    threads=snakemake.threads,
    unverified_flips=snakemake.params.unverified_flips,
)
