from tabprobe import logs
from tabprobe.probes.generation import generate_probe

logs.to_file(snakemake.log[0])
generate_probe(
    probe=snakemake.wildcards.probe,
    split=snakemake.wildcards.split,
    examples_path=snakemake.input.examples,
    tables_path=snakemake.input.tables,
    out=snakemake.output.probe,
    coverage_out=snakemake.output.coverage,
    seed=snakemake.params.seed,
    limit=snakemake.params.limit,
    options=snakemake.params.options,
    curation_paths=list(snakemake.input.curation),
    # The inputs named by the probe's needs (probe_inputs.smk: get_probe_needs) are read; the rest not.
    need_files=dict(snakemake.input.items()),
    need_settings=snakemake.params.needs,
)
