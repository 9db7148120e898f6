from tabprobe import logs
from tabprobe.models.shot_selection import select_shots

logs.to_file(snakemake.log[0])
select_shots(
    examples=snakemake.input.train,
    tables=snakemake.input.train_tables,
    out=snakemake.output[0],
    shots=snakemake.params.shots,
    seed=snakemake.params.seed,
)
