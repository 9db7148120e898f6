from tabprobe import logs
from tabprobe.models import serving
from tabprobe.models.predict import infer_nli

logs.to_file(snakemake.log[0])
infer_nli(
    probe_path=snakemake.input.probe,
    checkpoint=snakemake.input.checkpoint,
    shots=snakemake.input.shots[0] if snakemake.input.shots else None,
    out=snakemake.output.predictions,
    stats_out=snakemake.output.stats,
    threads=snakemake.threads,
    server_log=snakemake.params.server_log,
    use_server=serving.enabled(),
    **snakemake.params.settings,
)
