# The input functions of inoculation.smk (paper section 7) and of the controlled-variance rules:
# each passes config and the wildcards to tabprobe.config.inoculation_inputs (or job_settings),
# which decides; tests/test_input_functions.py keeps them so.

from tabprobe.config import inoculation_inputs as experiments
from tabprobe.config.job_settings import (
    INOCULATION_TRAIN_KEYS,
    VARIANCE_PLAN_KEYS,
    VARIANCE_TEST_KEYS,
    VARIANCE_TRAIN_KEYS,
    inference_settings,
    inoculation_report_plan,
    plan_settings,
)


def get_challenge_train_members(wildcards):
    return experiments.challenge_train_members(config, wildcards.experiment)


def get_challenge_members_by_split(wildcards):
    return experiments.challenge_members_by_split(config, wildcards.experiment)


def get_inoculation_table(wildcards):
    return experiments.inoculation_table(wildcards.experiment)


def get_inoculation_sizes(wildcards):
    return INOCULATION["sizes"]


def get_inoculation_settings(wildcards):
    return plan_settings(INOCULATION, INOCULATION_TRAIN_KEYS)


def get_base_model_settings(wildcards):
    """How an inoculated or controlled-variance model reads its inputs: as the model it comes from."""
    return inference_settings(config, config["models"][wildcards.model])


def get_inoculation_inputs(wildcards):
    return experiments.inoculation_inputs(config, wildcards.model, wildcards.experiment)


def get_inoculation_grid(wildcards):
    return experiments.inoculation_grid(config, wildcards.model, wildcards.experiment, wildcards.size)


def get_inoculation_shared_grid(wildcards):
    return experiments.inoculation_shared_grid(config, wildcards.model, wildcards.experiment)


def get_inoculation_grid_dirs(wildcards):
    return experiments.inoculation_grid_dirs(config, wildcards.model, wildcards.experiment, wildcards.size)


def get_inoculated_models(wildcards):
    return experiments.inoculation_models(config, wildcards.model, wildcards.experiment)


def get_inoculation_originals(wildcards):
    return experiments.inoculation_originals(config)


def get_challenge_originals(wildcards):
    return experiments.challenge_originals(config)


def get_inoculation_baselines(wildcards):
    return experiments.inoculation_baselines(config, wildcards.experiment)


def get_inoculation_predictions(wildcards):
    return experiments.inoculation_predictions(config, wildcards.model, wildcards.experiment)


def get_inoculation_best(wildcards):
    return experiments.inoculation_best(config, wildcards.model, wildcards.experiment)


def get_inoculation_score_inputs(wildcards):
    return experiments.inoculation_score_inputs(config, wildcards.model, wildcards.experiment)


def get_inoculation_plan():
    """What the report says of the inoculation grid (None: no inoculation)."""
    return inoculation_report_plan(config, INOCULATION)


# Controlled variance: each job gets only the settings it depends on (job_settings.VARIANCE_*_KEYS).
VARIANCE_PROBE_SOURCES = experiments.variance_probe_sources(CODE_DIR)


def get_variance_train_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_TRAIN_KEYS)


def get_variance_test_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_TEST_KEYS)


def get_variance_plan_settings(wildcards):
    return plan_settings(VARIANCE, VARIANCE_PLAN_KEYS)


def get_variance_inputs(wildcards):
    return experiments.variance_inputs(config, wildcards.model)


def get_variance_test_inputs(wildcards):
    return experiments.variance_test_inputs(config, wildcards.model, wildcards.size, wildcards.resample)


def get_variance_job_scores(wildcards):
    return experiments.variance_job_scores(config, wildcards.model)


def get_variance_job_scores_list(wildcards):
    return experiments.variance_job_scores_list(config, wildcards.model)
