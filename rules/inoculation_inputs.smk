# The input functions of inoculation.smk (paper section 7) and of the controlled-variance rules.

from tabprobe.inoculation import CHALLENGE_SPLIT
from tabprobe.variance import TEST_SPLIT as VARIANCE_TEST_SPLIT

# Paper Tables 9 and 11: accuracy on the original splits the report covers.
INOCULATION_SPLITS = [
    s for s in REPORT_SPLITS if "original" in config["probes"] and s in probe_splits(config, "original")
]


def lr_text(learning_rate):
    return f"{learning_rate:g}"


def challenge_members(experiment, split):
    """{column: {probe: its examples on split}} for the probes pooled into the experiment's table:
    on train (what the experiment fine-tunes on) every such probe's, generated for it whether or
    not the probe is scored on train (the report's Table 4 and 7 train rows: the probe's splits);
    on the test split, the probes that run there."""
    columns = pooled_members(INOCULATION_TABLES[experiment], PROBES)
    return {
        column: {
            p: layout.probe_examples(p, split) for p in probes if split == "train" or split in probe_splits(config, p)
        }
        for column, probes in columns.items()
    }


def get_challenge_members(split):
    def members(wildcards):
        return challenge_members(wildcards.experiment, split)

    return members


def get_inoculation_table(wildcards):
    return INOCULATION_TABLES[wildcards.experiment]


def get_inoculation_sizes(wildcards):
    return INOCULATION["sizes"]


def get_inoculation_settings(wildcards):
    return canonical({k: INOCULATION[k] for k in ("max_epochs", "patience", "batch_size", "dev_examples")})


def get_base_model_settings(wildcards):
    """How an inoculated or controlled-variance model reads its inputs: as the model it comes from."""
    return inference_settings(config["models"][wildcards.model])


def get_inoculation_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {
        "checkpoint": checkpoint_of(wildcards.model),
        "challenge": sorted(
            p for probes in challenge_members(wildcards.experiment, "train").values() for p in probes.values()
        ),
        "dev": layout.examples("dev"),
        "dev_tables": layout.tables("dev"),
    }


def get_inoculation_grid(wildcards):
    """{learning rate: inoculated checkpoint} over the grid, in config order."""
    return {
        lr_text(lr): layout.inoculated_checkpoint(wildcards.model, wildcards.experiment, wildcards.size, lr_text(lr))
        for lr in INOCULATION["learning_rates"]
    }


def get_inoculation_grid_dirs(wildcards):
    return list(get_inoculation_grid(wildcards).values())


def get_inoculated_models(wildcards):
    """{size: model name}; size 0 is the model before inoculation."""
    return {
        0: wildcards.model,
        **{size: inoculated_name(wildcards.model, wildcards.experiment, size) for size in INOCULATION["sizes"]},
    }


def get_inoculation_originals(wildcards):
    return {s: layout.probe_examples("original", s) for s in INOCULATION_SPLITS}


def get_inoculation_predictions(wildcards):
    """{model: {probe: {split: predictions}}}: every model of the experiment on the original
    splits and on the challenge probes of alpha1."""
    members = [p for probes in challenge_members(wildcards.experiment, CHALLENGE_SPLIT).values() for p in probes]
    return {
        model: {
            "original": {s: layout.predictions(model, "original", s) for s in INOCULATION_SPLITS},
            **{p: {CHALLENGE_SPLIT: layout.predictions(model, p, CHALLENGE_SPLIT)} for p in members},
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
        "members": sorted(
            p for probes in challenge_members(wildcards.experiment, CHALLENGE_SPLIT).values() for p in probes.values()
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
        for e in INOCULATION["experiments"]
        for path in (
            layout.inoculation_scores(INOCULATION["model"], e),
            layout.inoculation_summary(INOCULATION["model"], e),
        )
    ]


def get_inoculation_plan():
    """What the report says of the inoculation grid (None: no inoculation)."""
    return canonical({**INOCULATION, "full": FULL}) if INOCULATION else None


# Controlled variance: each job gets only the settings it depends on, so a new training size
# or repeat adds jobs without re-running the others, and a new test range re-scores without
# re-training.
VARIANCE_TRAIN_KEYS = ("train_range", "dev_examples", "learning_rate", "max_epochs", "patience", "batch_size")
VARIANCE_TEST_KEYS = ("test_ranges", "test_examples")
# The generator of the examples (probes are loaded by name, so code_of does not see it): editing
# num_comparative re-runs the experiment, as it re-runs the probe's own jobs.
VARIANCE_PROBE_SOURCES = [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files("num_comparative")]


def get_variance_train_settings(wildcards):
    return canonical({k: VARIANCE[k] for k in VARIANCE_TRAIN_KEYS})


def get_variance_test_settings(wildcards):
    return canonical({k: VARIANCE[k] for k in VARIANCE_TEST_KEYS})


def get_variance_plan_settings(wildcards):
    return canonical({k: VARIANCE[k] for k in ("train_range", "test_ranges", "train_sizes", "resamples")})


def get_variance_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {
        "checkpoint": checkpoint_of(wildcards.model),
        "train": layout.examples("train"),
        "train_tables": layout.tables("train"),
        "dev": layout.examples("dev"),
        "dev_tables": layout.tables("dev"),
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
