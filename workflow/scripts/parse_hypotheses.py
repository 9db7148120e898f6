from tabprobe import logs
from tabprobe.data.parsing import parse_hypotheses

logs.to_file(snakemake.log[0])
parse_hypotheses(
    examples_path=snakemake.input.examples,
    out=snakemake.output.parses,
    summary_out=snakemake.output.summary,
    processes=snakemake.threads,
    **snakemake.params.settings,
)
