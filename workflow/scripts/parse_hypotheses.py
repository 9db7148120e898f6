from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.parse_hypotheses(
    examples_path=snakemake.input.examples,
    out=snakemake.output.parses,
    summary_out=snakemake.output.summary,
    processes=snakemake.threads,
    **snakemake.params.settings,
)
