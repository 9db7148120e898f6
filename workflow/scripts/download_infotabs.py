from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.download_infotabs(dest=snakemake.output[0], url=snakemake.params.url, timeout=30.0)
