from tabprobe import logs
from tabprobe.inoculation.variance import collect_variance

logs.to_file(snakemake.log[0])
collect_variance(
    base=snakemake.wildcards.model,
    score_paths=snakemake.params.scores,
    out=snakemake.output.scores,
    summary_out=snakemake.output.summary,
    settings=snakemake.params.settings,
)
