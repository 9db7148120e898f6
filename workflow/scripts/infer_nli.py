from tabprobe import logs
from tabprobe.jobs.infer_nli import infer_nli

logs.to_file(snakemake.log[0])
infer_nli(
    probe_path=snakemake.input.probe,
    checkpoint=snakemake.input.checkpoint,
    out=snakemake.output.predictions,
    stats_out=snakemake.output.stats,
    threads=snakemake.threads,
    **snakemake.params.settings,
)
