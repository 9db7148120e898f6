from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.init_model(base=snakemake.params.init["base"], out_dir=snakemake.output[0], seed=snakemake.params.init["seed"])
