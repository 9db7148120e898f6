from tabprobe import logs, stages

logs.to_file(snakemake.log[0])
stages.select_inoculation(grid=snakemake.params.grid, out=snakemake.output[0])
