from tabprobe import logs, stages
from tabprobe.config import infotabs_root

logs.to_file(snakemake.log[0])
stages.check_infotabs(
    root=infotabs_root(snakemake.config),
    split=snakemake.wildcards.split,
    out=snakemake.output[0],
    on_duplicate=snakemake.params.on_duplicate,
    verify=snakemake.params.verify,
)
