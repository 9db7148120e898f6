from tabprobe import logs
from tabprobe.data.infotabs.external import ingest_external_probe

logs.to_file(snakemake.log[0])
ingest_external_probe(
    probe=snakemake.wildcards.probe,
    split=snakemake.wildcards.split,
    folder=snakemake.params.folder,
    examples_path=snakemake.input.examples,
    out=snakemake.output.probe,
    coverage_out=snakemake.output.coverage,
    original_path=snakemake.input.get("original"),
)
