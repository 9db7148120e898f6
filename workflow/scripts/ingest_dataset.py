from tabprobe import logs
from tabprobe.data.ingest import ingest_dataset

logs.to_file(snakemake.log[0])
ingest_dataset(
    dataset=snakemake.params.dataset,
    # read from config, not a param: the data is identified by its content (the `digest` param)
    config=snakemake.config,
    split=snakemake.wildcards.split,
    outputs=dict(snakemake.output.items()),
    on_duplicate=snakemake.params.on_duplicate,
)
