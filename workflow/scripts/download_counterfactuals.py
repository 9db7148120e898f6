from tabprobe import logs
from tabprobe.data.infotabs.counterfactuals import download_counterfactuals

logs.to_file(snakemake.log[0])
download_counterfactuals(dest=snakemake.output[0], url=snakemake.params.url, timeout=30.0)
