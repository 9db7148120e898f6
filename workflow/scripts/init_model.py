from tabprobe import logs
from tabprobe.models.checkpoints import init_model

logs.to_file(snakemake.log[0])
init_model(base=snakemake.params.init["base"], out_dir=snakemake.output[0], seed=snakemake.params.init["seed"])
