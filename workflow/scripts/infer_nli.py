from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.infer_nli(
    probe_path=snakemake.input.probe,
    checkpoint=snakemake.input.checkpoint,
    out=snakemake.output.predictions,
    stats_out=snakemake.output.stats,
    threads=snakemake.threads,
    **snakemake.params.settings,
)
