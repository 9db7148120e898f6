from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.find_relevant_rows(
    examples_path=snakemake.input.examples,
    tables_path=snakemake.input.tables,
    out=snakemake.output.relevance,
    summary_out=snakemake.output.summary,
    source=snakemake.params.source,
    annotations_path=snakemake.input.get("annotations"),
)
