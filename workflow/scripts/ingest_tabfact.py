from tabprobe import logs
from tabprobe.data.tabfact.ingest import ingest_tabfact

logs.to_file(snakemake.log[0])
ingest_tabfact(
    # read from config, not a param: the data is identified by its content (rule ingest_tabfact)
    root=snakemake.config["tabfact_dir"],
    split=snakemake.wildcards.split,
    examples_out=snakemake.output.examples,
    tables_out=snakemake.output.tables,
    summary_out=snakemake.output.summary,
    programs_out=snakemake.output.programs,
    on_duplicate=snakemake.params.on_duplicate,
)
