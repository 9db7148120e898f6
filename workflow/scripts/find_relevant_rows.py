from tabprobe import logs
from tabprobe.data.infotabs.relevance import find_relevant_rows

logs.to_file(snakemake.log[0])
find_relevant_rows(
    examples_path=snakemake.input.examples,
    tables_path=snakemake.input.tables,
    out=snakemake.output.relevance,
    summary_out=snakemake.output.summary,
    source=snakemake.params.source,
    annotations_path=snakemake.input.get("annotations"),
    aligner=snakemake.params.aligner,
    threads=snakemake.threads,
)
