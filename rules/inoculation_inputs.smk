# The input functions of inoculation.smk (paper section 7) and of the controlled-variance rules;
# what they decide is in tabprobe.config.derived and tabprobe.config.job_settings.

from tabprobe.config import DEFENSE_BASELINE, defense_probe, inoculated_name
from tabprobe.config.job_settings import (
    INOCULATION_TRAIN_KEYS,
    VARIANCE_PLAN_KEYS,
    VARIANCE_TEST_KEYS,
    VARIANCE_TRAIN_KEYS,
    inference_settings,
    inoculation_report_plan,
    plan_settings,
)
from tabprobe.config.names import CHALLENGE_SPLIT
from tabprobe.probes import source_files
from tabprobe.config.names import VARIANCE_TEST_SPLIT

# Paper Tables 10 and 12: the challenge set on alpha1 (and train, with `train_rows`).
CHALLENGE_SPLITS = derived.challenge_splits(config)
# Paper Tables 9 and 11: accuracy on the original splits the report covers.
INOCULATION_SPLITS = derived.inoculation_splits(config)


def lr_text(learning_rate):
    return f"{learning_rate:g}"


def challenge_members(experiment, split):
    return derived.challenge_members(config, experiment, split)


def get_challenge_members(split):
    def members(wildcards):
        return challenge_members(wildcards.experiment, split)

    return members


def get_challenge_members_by_split(wildcards):
    """{challenge split: challenge_members}: paper Tables 10 and 12 report alpha1 and train."""
    return {split: challenge_members(wildcards.experiment, split) for split in CHALLENGE_SPLITS}


def get_inoculation_table(wildcards):
    """The paper table whose pooled probes the experiment trains on; a Defense's own name."""
    return INOCULATION_TABLES.get(wildcards.experiment, wildcards.experiment)


def get_inoculation_sizes(wildcards):
    return INOCULATION["sizes"]


def get_inoculation_settings(wildcards):
    return plan_settings(INOCULATION, INOCULATION_TRAIN_KEYS)


def get_inoculation_dev(wildcards):
    """Early stopping's dev examples: dev itself, or for a Defense its probe's dev examples (the
    paper's "Validate on val*")."""
    probe = defense_probe(wildcards.experiment)
    if probe:
        return {"dev": layout.probe_examples(probe, "dev")}
    return {"dev": PAPER.examples(PAPER.dev_split), "dev_tables": PAPER.tables(PAPER.dev_split)}


def get_base_model_settings(wildcards):
    """How an inoculated or controlled-variance model reads its inputs: as the model it comes from."""
    return inference_settings(config, config["models"][wildcards.model])


def get_inoculation_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {
        "checkpoint": checkpoint_of(wildcards.model),
        "challenge": sorted(
            p for probes in challenge_members(wildcards.experiment, "train").values() for p in probes.values()
        ),
        **get_inoculation_dev(wildcards),
    }


def inoculation_grid(model, experiment, size):
    """{learning rate: inoculated checkpoint} over the grid, in config order."""
    return {
        lr_text(lr): layout.inoculated_checkpoint(model, experiment, size, lr_text(lr))
        for lr in INOCULATION["learning_rates"]
    }


def get_inoculation_grid(wildcards):
    return inoculation_grid(wildcards.model, wildcards.experiment, wildcards.size)


def get_inoculation_shared_grid(wildcards):
    """{"<experiment>/<size>": {learning rate: checkpoint}} of every run the kept rate is chosen
    over ("shared": the paper's one rate for all), or {} ("per_size": each run its own best)."""
    if INOCULATION["learning_rate_selection"] != "shared":
        return {}
    return {
        f"{experiment}/{size}": inoculation_grid(wildcards.model, experiment, size)
        for experiment in derived.selection_group(config, wildcards.experiment)
        for size in INOCULATION["sizes"]
    }


def get_inoculation_grid_dirs(wildcards):
    shared = [p for grid in get_inoculation_shared_grid(wildcards).values() for p in grid.values()]
    return sorted(set(get_inoculation_grid(wildcards).values()) | set(shared))


def get_inoculated_models(wildcards):
    """{size: model name}; size 0 is the model before inoculation."""
    return {
        0: wildcards.model,
        **{size: inoculated_name(wildcards.model, wildcards.experiment, size) for size in INOCULATION["sizes"]},
    }


def get_inoculation_originals(wildcards):
    return {s: layout.probe_examples("original", s) for s in INOCULATION_SPLITS}


def get_challenge_originals(wildcards):
    """{challenge split: probe original's examples}: the paired Original column of Tables 10 and 12."""
    return {s: layout.probe_examples("original", s) for s in CHALLENGE_SPLITS}


def get_inoculation_baselines(wildcards):
    """{probe: its alpha1 examples} scored beside a Defense: num_comparative, whose comparisons
    the numeric perturbations rewrite (numerical-qa-robustness's "Original" row)."""
    if defense_probe(wildcards.experiment) and DEFENSE_BASELINE in PROBES:
        return {DEFENSE_BASELINE: layout.probe_examples(DEFENSE_BASELINE, CHALLENGE_SPLIT)}
    return {}


def get_inoculation_predictions(wildcards):
    """{model: {probe: {split: predictions}}}: every model of the experiment on the original
    splits, on the challenge probes and the originals of train and alpha1, and on the baselines."""
    by_probe = {"original": set(INOCULATION_SPLITS) | set(CHALLENGE_SPLITS)}
    for split in CHALLENGE_SPLITS:
        for probes in challenge_members(wildcards.experiment, split).values():
            for p in probes:
                by_probe.setdefault(p, set()).add(split)
    for p in get_inoculation_baselines(wildcards):
        by_probe.setdefault(p, set()).add(CHALLENGE_SPLIT)
    return {
        model: {
            p: {s: layout.predictions(model, p, s) for s in PAPER.splits if s in splits} for p, splits in by_probe.items()
        }
        for model in get_inoculated_models(wildcards).values()
    }


def get_inoculation_best(wildcards):
    return {
        size: layout.inoculated_checkpoint(wildcards.model, wildcards.experiment, size) for size in INOCULATION["sizes"]
    }


def get_inoculation_score_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    predictions = get_inoculation_predictions(wildcards)
    return {
        "originals": list(get_inoculation_originals(wildcards).values()),
        "challenge_originals": list(get_challenge_originals(wildcards).values()),
        "baselines": list(get_inoculation_baselines(wildcards).values()),
        "members": sorted(
            p
            for by_column in get_challenge_members_by_split(wildcards).values()
            for probes in by_column.values()
            for p in probes.values()
        ),
        "predictions": sorted(
            path for by_probe in predictions.values() for by_split in by_probe.values() for path in by_split.values()
        ),
        "best": list(get_inoculation_best(wildcards).values()),
    }


def inoculation_outputs():
    if not INOCULATION:
        return []
    return [
        path
        for e in INOCULATION_EXPERIMENTS
        for path in (
            layout.inoculation_scores(INOCULATION["model"], e),
            layout.inoculation_summary(INOCULATION["model"], e),
        )
    ]


def get_inoculation_plan():
    """What the report says of the inoculation grid (None: no inoculation)."""
    return inoculation_report_plan(config, INOCULATION)


# Controlled variance: each job gets only the settings it depends on (job_settings.VARIANCE_*_KEYS).
# The generator of the examples (probes are loaded by name, so code_of does not see it): editing
# num_comparative re-runs the experiment, as it re-runs the probe's own jobs.
VARIANCE_PROBE_SOURCES = [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files("num_comparative")]


def get_variance_train_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_TRAIN_KEYS)


def get_variance_test_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_TEST_KEYS)


def get_variance_plan_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_PLAN_KEYS)


def get_variance_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {
        "checkpoint": checkpoint_of(wildcards.model),
        "train": PAPER.examples(PAPER.train_split),
        "train_tables": PAPER.tables(PAPER.train_split),
        "dev": PAPER.examples(PAPER.dev_split),
        "dev_tables": PAPER.tables(PAPER.dev_split),
    }


def get_variance_checkpoint(wildcards):
    """The model a score_variance job tests: size 0 is the model before fine-tuning."""
    require_configured(config, model=wildcards.model)
    if int(wildcards.size) == 0:
        return checkpoint_of(wildcards.model)
    return layout.variance_checkpoint(wildcards.model, wildcards.size, wildcards.resample)


def get_variance_job_scores(wildcards):
    """{size: {repeat: score_variance's file}}, size 0 (the model before) first."""
    return {
        size: {r: layout.variance_job_scores(wildcards.model, size, r) for r in range(1, VARIANCE["resamples"] + 1)}
        for size in [0, *VARIANCE["train_sizes"]]
    }


def get_variance_job_scores_list(wildcards):
    return [path for by_repeat in get_variance_job_scores(wildcards).values() for path in by_repeat.values()]


def variance_outputs():
    if not VARIANCE:
        return []
    return [layout.variance_scores(VARIANCE["model"]), layout.variance_summary(VARIANCE["model"])]
