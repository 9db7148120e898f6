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
    parses_path=snakemake.input.get("parses"),
    relevance_path=snakemake.input.get("relevance"),
    curation_paths=list(snakemake.input.curation),
    counterfactuals=snakemake.input.get("counterfactuals"),
    verify_counterfactuals=snakemake.params.verify_counterfactuals,
    programs_path=snakemake.input.get("programs"),
)
