from tabprobe import logs
from tabprobe.inoculation.outcomes import score_inoculation

logs.to_file(snakemake.log[0])
score_inoculation(
    experiment=snakemake.wildcards.experiment,
    table=snakemake.params.table,
    models=snakemake.params.models,
    originals=snakemake.params.originals,
    members=snakemake.params.members,
    predictions=snakemake.params.predictions,
    grids=snakemake.params.grids,
    settings=snakemake.params.settings,
    seed=snakemake.params.seed,
    out=snakemake.output.scores,
    summary_out=snakemake.output.summary,
    unverified_flips=snakemake.params.unverified_flips,
    challenge_originals=snakemake.params.challenge_originals,
    baselines=snakemake.params.baselines,
)
