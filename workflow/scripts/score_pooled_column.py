from tabprobe import logs
from tabprobe.scoring.pooled_columns import score_pooled_column

logs.to_file(snakemake.log[0])
score_pooled_column(
    table=snakemake.wildcards.paper_table,
    column=snakemake.wildcards.column,
    split=snakemake.wildcards.split,
    model=snakemake.wildcards.model,
    probe_names=snakemake.params.probes,
    probe_paths=snakemake.input.probes,
    prediction_paths=snakemake.input.predictions,
    original_predictions_path=snakemake.input.get("original"),
    hypothesis_only_predictions_path=snakemake.input.get("hypothesis_only"),
    out=snakemake.output[0],
    settings=snakemake.params.settings,
    seed=snakemake.params.seed,
    unverified_flips=snakemake.params.unverified_flips,
)
