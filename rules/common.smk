# What every stage shares (no rules here: Snakemake's linter wants functions apart from rules):
# the checked config and what follows from it (the probes, the models, the derived models of
# inoculation and controlled variance), wildcard constraints, the code inputs of every rule, a
# model's config block and checkpoint. Each stage's input functions are in <stage>_inputs.smk;
# what they decide is in the library (tabprobe.config.derived, tabprobe.config.job_settings), so
# these files only pass it `config` and the wildcards. Every path comes from tabprobe.layout.

import os
import re
import sys
from pathlib import Path

# The library lives in workflow/tabprobe. The workflow imports this checkout's copy, and so do its
# jobs (code_inputs.jobs_import_from: an installed tabprobe would otherwise come first for them).
# The checkout this file belongs to: workflow.basedir is the main Snakefile's folder, which is the
# user's own when tabprobe is used as a module (docs/module.md).
WORKFLOW_ROOT = Path(workflow.current_basedir.get_path_or_uri(secret_free=True)).parent
LIBRARY_DIR = str(WORKFLOW_ROOT / "workflow")
sys.path.insert(0, LIBRARY_DIR)
# The library as the rules' code inputs name it: relative to the working folder, as Snakemake
# records inputs, so a copied or moved checkout (or a cluster node that mounts it elsewhere)
# finds its finished results up to date.
CODE_DIR = os.path.relpath(LIBRARY_DIR)

from snakemake.utils import validate
from tabprobe.config import (
    INOCULATION_TABLES,
    adopt_planned,
    hand_to_jobs,
    MODEL_NAME,
    PROBE_NAME,
    check as check_config,
    type_command_line_values,
    external_probes,
    inoculation_experiments,
    inoculation_plan,
    min_examples_record,
    variance_plan,
    report_splits,
    require_configured,
)
from tabprobe.config import derived
from tabprobe.config.job_settings import canonical, scoring_settings
from tabprobe.models.endpoint.budget import RUN_VARIABLE as ENDPOINT_RUN_VARIABLE, new_run_id
from tabprobe import code_inputs, layout
from tabprobe.data.datasets import all_datasets, paper_dataset, resolve, use_config
from tabprobe.probes import POOLED_COLUMNS, POOLED_TABLES, register_external

code_inputs.jobs_import_from(LIBRARY_DIR)

SCHEMA = "../workflow/schemas/config.schema.yaml"
# Readable errors naming each bad key (and the file and line that set it) first; then
# snakemake's validate fills in defaults. Snakemake merges config.yaml, then each --configfile.
_CLI_CONFIGFILES = [str(f) for f in workflow.config_settings.configfiles]
_CONFIG_SOURCES = (
    []
    if workflow.config_settings.replace_workflow_config
    else [str(f) for f in workflow.configfiles if str(f) not in _CLI_CONFIGFILES]
)
# A cluster job computes with the config its run was planned with (tabprobe.config.planned): it
# re-reads the config files, but not every flag (--replace-workflow-config does not reach it).
if not workflow.is_main_process:
    adopt_planned(config)
type_command_line_values(config, workflow.config_settings.config)
check_config(
    config,
    workflow.source_path(SCHEMA),
    sources=_CONFIG_SOURCES + _CLI_CONFIGFILES,
    schema_shown="workflow/schemas/config.schema.yaml",
    overrides=workflow.config_settings.config,
)
validate(config, SCHEMA)
if workflow.is_main_process:
    hand_to_jobs(config)
    # The run's id, inherited by its jobs: a served model's request budget is per run.
    os.environ[ENDPOINT_RUN_VARIABLE] = new_run_id()
# The datasets: the built-in ones and the config's own (`datasets:`), which every job learns too.
use_config(config)
DATASETS = all_datasets()
# The dataset of the paper's protocol (inoculation, controlled variance, the pooled tables, the
# parse and the relevance source are made of its splits).
PAPER = paper_dataset()

# External probe sets (folders in the paper dataset's format named in config) become probes like the rest.
EXTERNALS = external_probes(config)
for _name, _label_change in EXTERNALS.items():
    register_external(_name, _label_change)
PROBES = list(config["probes"])
GENERATED_PROBES = [p for p in PROBES if p not in EXTERNALS]
MODELS = list(config["models"])
# The models that answer the paper dataset's probes (all but those trained on two labels): the
# pooled columns of paper Tables 4 and 7 are theirs.
PAPER_MODELS = [m for m in MODELS if PAPER.name in derived.model_datasets(config, m)]
REPORT_SPLITS = report_splits(config)
# Sorted keys (job_settings.canonical): reordering config.yaml re-runs nothing.
SCORING = scoring_settings(config)
# The fewest examples each probe needs before the report reads a verdict from it (report.power).
MIN_EXAMPLES = min_examples_record(config)
TRAINED_MODELS = derived.models_of_kind(config, "train")
CAUSAL_MODELS = derived.models_of_kind(config, "causal")
ENDPOINT_MODELS = derived.models_of_kind(config, "endpoint")
UNPACKED_MODELS = derived.unpacked_models(config)
# The models prompted by tabprobe.models.lm_prompts (k-shot examples from select_shots).
PROMPTED_MODELS = CAUSAL_MODELS + ENDPOINT_MODELS
INITIALISED_MODELS = derived.models_of_kind(config, "init")


def _one_of(names):
    # (?!) never matches: a rule whose model list is empty then matches no file.
    return "|".join(re.escape(n) for n in names) or "(?!)"


def _none_of(names):
    # A model name, but none of `names` (each followed by the "/" that ends it in every path).
    if not names:
        return MODEL_NAME
    return f"(?!(?:{'|'.join(re.escape(n) for n in names)})/){MODEL_NAME}"


# Inoculation (paper section 7) and controlled variance: the settings in force (`full: true`: the
# paper's), or None. Each inoculated model is probed under its own name,
# <model>.ino-<experiment>-<size>, with the settings of the model it came from (model_config).
# A Defense (numerical-qa-robustness) is an experiment too: defense-<numeric probe>.
INOCULATION = inoculation_plan(config)
INOCULATION_EXPERIMENTS = inoculation_experiments(INOCULATION)
INOCULATED = derived.inoculated_models(config)
VARIANCE = variance_plan(config)


wildcard_constraints:
    # Any dataset's (their data files lie apart: Dataset.data_folder), a probe's are its dataset's.
    split=_one_of(dict.fromkeys(split for dataset in DATASETS for split in dataset.splits)),
    # A paper table id (table4, table7), not a dataset's table.
    paper_table=_one_of(POOLED_TABLES),
    experiment=_one_of([*INOCULATION_TABLES, *INOCULATION_EXPERIMENTS]),
    size=r"\d+",
    column=_one_of(POOLED_COLUMNS.values()),
    # Any well-formed name (never a path: no "/", no leading dot), not only configured ones, so
    # that a target naming an unknown probe or model reaches require_configured's "did you mean".
    probe=PROBE_NAME,
    model=MODEL_NAME,


def code_of(rule_name, modules=()):
    """The library files rule `rule_name`'s script runs (the import closure of
    workflow/scripts/<rule>.py, tabprobe.code_inputs), and those of `modules` (dotted names: the
    modules whose functions the script looks up at run time, a dataset's jobs): a script rule
    notices edits to its script, not to the modules it imports, so they are its inputs: editing
    seeding.py re-scores, editing models.py re-runs inference, and editing the report re-runs
    nothing but the report."""
    script = WORKFLOW_ROOT / "workflow" / "scripts" / f"{rule_name}.py"
    files = {*code_inputs.of_script(script), *(f for module in modules for f in code_inputs.of_module(module))}
    # A user's dataset module lies outside the library: its path is absolute, and joining keeps it.
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in sorted(files)]


def configured(wildcards):
    """Stop with "did you mean" when a requested path names a model or probe not in config."""
    require_configured(config, **{k: getattr(wildcards, k) for k in ("model", "probe") if hasattr(wildcards, k)})


def model_config(wildcards):
    """A model's config block; an inoculated model has the settings of the model it came from."""
    if wildcards.model not in INOCULATED:
        configured(wildcards)
    return derived.model_config(config, wildcards.model)


def checkpoint_of(name):
    return derived.checkpoint_of(config, name)
