from tabprobe import logs
from tabprobe.data.infotabs.download import infotabs_root
from tabprobe.data.infotabs.ingest import ingest_infotabs

logs.to_file(snakemake.log[0])
ingest_infotabs(
    # read from config, not a param: the data is identified by its content (check_infotabs)
    root=infotabs_root(snakemake.config),
    split=snakemake.wildcards.split,
    examples_out=snakemake.output.examples,
    tables_out=snakemake.output.tables,
    summary_out=snakemake.output.summary,
    on_duplicate=snakemake.params.on_duplicate,
    verify=False,  # check_infotabs verified this very content
)
