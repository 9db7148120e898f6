from tabprobe import logs
from tabprobe.scoring.probe_scores import score_probe

logs.to_file(snakemake.log[0])
score_probe(
    probe=snakemake.wildcards.probe,
    split=snakemake.wildcards.split,
    model=snakemake.wildcards.model,
    probe_path=snakemake.input.probe,
    predictions_path=snakemake.input.predictions,
    original_predictions_path=snakemake.input.get("original"),
    baseline_predictions_path=snakemake.input.get("baseline"),
    out=snakemake.output[0],
    settings=snakemake.params.settings,
    seed=snakemake.params.seed,
    unverified_flips=snakemake.params.unverified_flips,
    externals=snakemake.params.externals,
    served=snakemake.params.served,
)
