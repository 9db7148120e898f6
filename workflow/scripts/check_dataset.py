from tabprobe import logs
from tabprobe.data.ingest import check_dataset

logs.to_file(snakemake.log[0])
check_dataset(
    dataset=snakemake.params.dataset,
    config=snakemake.config,
    split=snakemake.wildcards.split,
    out=snakemake.output[0],
    on_duplicate=snakemake.params.on_duplicate,
    settings=snakemake.params.settings,
)
