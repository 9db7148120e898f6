"""The workflow's config: reading it as Snakemake does, the settings in force, and checks with
messages that name the key (and the file and line that set it) before any job runs.

    files      config files and `--config` values read as Snakemake reads them (the one YAML loader)
    locations  the file:line (or --config) that set a key
    defaults   what a config that leaves a key out gets
    settings   a probe's splits, cap and options; the inoculation and controlled-variance plans
    names      the patterns of probe and model names
    checks     check(): the schema, then problems (what the schema cannot see); require_configured
    planned    the planner's config, handed to cluster jobs as a file
    derived    what the rules plan with: the models of each kind, the inoculated models, a model's
               checkpoint and training data, the runs, the scoring inputs, the showcase
    inoculation_inputs  what the inoculation and controlled-variance rules plan with
    report_inputs  the files the results table and the report read
    job_settings  the params the rules hand their jobs: canonical, training, inference, scoring
    errors     ConfigError
    __main__   `python -m tabprobe.config config.yaml [more.yaml ...]`

derived, inoculation_inputs, report_inputs and job_settings are the rules' alone and not taken
from here: the jobs that import tabprobe.config (collect_results, score_inoculation) would
otherwise count them among their code inputs (tabprobe.code_inputs). Every decision the rules'
input functions (rules/*_inputs.smk) make is one of theirs, unit-tested without Snakemake.
"""

from __future__ import annotations

from tabprobe.config.checks import check, require_configured
from tabprobe.config.defaults import (
    FULL_INOCULATION,
    FULL_VARIANCE,
    INOCULATION_DEFAULTS,
    SCHEMA,
    VARIANCE_DEFAULTS,
    schema_default,
)
from tabprobe.config.errors import ConfigError
from tabprobe.config.files import NotYaml, load_files, read_yaml, type_command_line_values
from tabprobe.config.locations import locate
from tabprobe.config.names import MODEL_NAME, PROBE_NAME
from tabprobe.config.planned import adopt_planned, hand_to_jobs
from tabprobe.config.settings import (
    DEFENSE_BASELINE,
    DEFENSE_PROBES,
    INOCULATION_TABLES,
    WORKFLOW_PROBE_OPTIONS,
    curation_files,
    defense_probe,
    external_probes,
    inoculated_name,
    inoculation_experiments,
    inoculation_plan,
    min_examples_record,
    model_max_length,
    original_covers,
    plan_layers,
    probe_limit,
    probe_min_examples,
    probe_options,
    probe_splits,
    report_splits,
    variance_plan,
)

__all__ = [
    "ConfigError",
    "NotYaml",
    "check",
    "require_configured",
    "locate",
    "adopt_planned",
    "hand_to_jobs",
    "read_yaml",
    "load_files",
    "type_command_line_values",
    "SCHEMA",
    "schema_default",
    "INOCULATION_DEFAULTS",
    "FULL_INOCULATION",
    "VARIANCE_DEFAULTS",
    "FULL_VARIANCE",
    "MODEL_NAME",
    "PROBE_NAME",
    "INOCULATION_TABLES",
    "WORKFLOW_PROBE_OPTIONS",
    "curation_files",
    "external_probes",
    "inoculated_name",
    "inoculation_plan",
    "inoculation_experiments",
    "defense_probe",
    "DEFENSE_PROBES",
    "DEFENSE_BASELINE",
    "min_examples_record",
    "model_max_length",
    "original_covers",
    "plan_layers",
    "probe_limit",
    "probe_min_examples",
    "probe_options",
    "probe_splits",
    "report_splits",
    "variance_plan",
]
