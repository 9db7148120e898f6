from tabprobe import logs
from tabprobe.models.endpoint.job import query_endpoint

logs.to_file(snakemake.log[0])
query_endpoint(
    probe_path=snakemake.input.probe,
    shots=snakemake.input.shots[0] if snakemake.input.shots else None,
    out=snakemake.output.predictions,
    answers_out=snakemake.output.answers,
    stats_out=snakemake.output.stats,
    model=snakemake.wildcards.model,
    serve_log=snakemake.params.serve_log,
    **snakemake.params.settings,
)
