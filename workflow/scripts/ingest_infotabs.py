from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.ingest_infotabs(
    root=snakemake.params.root,
    split=snakemake.wildcards.split,
    examples_out=snakemake.output.examples,
    tables_out=snakemake.output.tables,
    summary_out=snakemake.output.summary,
    on_duplicate=snakemake.params.on_duplicate,
    verify=snakemake.params.verify,
)
