from tabprobe import logs
from tabprobe.data.infotabs.download import infotabs_root
from tabprobe.data.infotabs.ingest import check_infotabs

logs.to_file(snakemake.log[0])
check_infotabs(
    root=infotabs_root(snakemake.config),
    split=snakemake.wildcards.split,
    out=snakemake.output[0],
    on_duplicate=snakemake.params.on_duplicate,
    verify=snakemake.params.verify,
)
