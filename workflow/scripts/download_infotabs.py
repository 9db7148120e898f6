from tabprobe import logs
from tabprobe.jobs.download_infotabs import download_infotabs

logs.to_file(snakemake.log[0])
download_infotabs(dest=snakemake.output[0], url=snakemake.params.url, timeout=30.0)
