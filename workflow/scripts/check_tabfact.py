from tabprobe import logs
from tabprobe.data.tabfact.ingest import check_tabfact

logs.to_file(snakemake.log[0])
check_tabfact(
    root=snakemake.config["tabfact_dir"],
    split=snakemake.wildcards.split,
    out=snakemake.output[0],
    on_duplicate=snakemake.params.on_duplicate,
)
