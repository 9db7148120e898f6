from tabprobe import logs
from tabprobe.inoculation.inoculate import select_inoculation

logs.to_file(snakemake.log[0])
select_inoculation(grid=snakemake.params.grid, out=snakemake.output[0], shared=snakemake.params.shared)
