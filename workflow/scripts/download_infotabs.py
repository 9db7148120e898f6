from tabprobe import logs
from tabprobe.data.infotabs.download import download_infotabs

logs.to_file(snakemake.log[0])
download_infotabs(dest=snakemake.output[0], url=snakemake.params.url, timeout=30.0)
