# The rules' helpers (no rules here: Snakemake's linter wants functions apart from rules): the
# checked config and what follows from it (the probes, the models, the derived models of
# inoculation and controlled variance), wildcard constraints, the code inputs of every rule, then
# the input functions of each stage in the order of the rule files. The inoculation and
# controlled-variance helpers are in inoculation_inputs.smk. Every path comes from tabprobe.layout.

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
    DEFENSE_BASELINE,
    INOCULATION_TABLES,
    adopt_planned,
    hand_to_jobs,
    MODEL_NAME,
    PROBE_NAME,
    check as check_config,
    curation_files,
    defense_probe,
    type_command_line_values,
    external_probes,
    inoculated_name,
    inoculation_experiments,
    inoculation_plan,
    model_max_length,
    variance_plan,
    original_covers,
    probe_limit,
    probe_options,
    probe_splits,
    report_splits,
    require_configured,
)
from tabprobe import code_inputs, human_counterfactuals, layout
from tabprobe.download import INFOTABS_COMMIT, split_digest, tables_digest
from tabprobe.external import files_below
from tabprobe.infotabs import SPLITS
from tabprobe.probes import POOLED_COLUMNS, POOLED_TABLES, get_probe, pooled_members, register_external, source_files
from tabprobe.report.dimensions import DIMENSIONS

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

# External probe sets (folders in InfoTabS format named in config) become probes like the rest.
EXTERNALS = external_probes(config)
for _name, _label_change in EXTERNALS.items():
    register_external(_name, _label_change)
PROBES = list(config["probes"])
GENERATED_PROBES = [p for p in PROBES if p not in EXTERNALS]
MODELS = list(config["models"])
REPORT_SPLITS = report_splits(config)


def canonical(value):
    """Dicts with sorted keys, recursively. Snakemake compares params by their text, so without
    this, reordering keys in config.yaml would re-run jobs whose settings did not change."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


SCORING = canonical(config["scoring"])
FULL = config["full"]
TRAINED_MODELS = [m for m, c in config["models"].items() if "train" in c]
CAUSAL_MODELS = [m for m, c in config["models"].items() if "causal" in c]
INITIALISED_MODELS = [m for m, c in config["models"].items() if "init" in c]


def _one_of(names):
    # (?!) never matches: a rule whose model list is empty then matches no file.
    return "|".join(re.escape(n) for n in names) or "(?!)"


# Paper Tables 4 and 7 pool the probes of a family that keep the label, and those that flip it.
POOLED = {table: pooled_members(table, PROBES) for table in POOLED_TABLES}
# The model whose original predictions paper Table 8 sets beside a premise model's.
HYPOTHESIS_ONLY_MODELS = [m for m, c in config["models"].items() if c.get("premise") == "hypothesis_only"]


# Inoculation (paper section 7) and controlled variance: the settings in force (`full: true`: the
# paper's), or None. Each inoculated model is probed under its own name,
# <model>.ino-<experiment>-<size>, with the settings of the model it came from (model_config).
# A Defense (numerical-qa-robustness) is an experiment too: defense-<numeric probe>.
INOCULATION = inoculation_plan(config)
INOCULATION_EXPERIMENTS = inoculation_experiments(INOCULATION)
INOCULATED = {
    inoculated_name(INOCULATION["model"], experiment, size): (INOCULATION["model"], experiment, size)
    for experiment in INOCULATION_EXPERIMENTS
    for size in INOCULATION["sizes"]
}
VARIANCE = variance_plan(config)


wildcard_constraints:
    split=_one_of(SPLITS),
    # A paper table id (table4, table7), not an InfoTabS table.
    paper_table=_one_of(POOLED_TABLES),
    experiment=_one_of([*INOCULATION_TABLES, *INOCULATION_EXPERIMENTS]),
    size=r"\d+",
    column=_one_of(POOLED_COLUMNS.values()),
    # Any well-formed name (never a path: no "/", no leading dot), not only configured ones, so
    # that a target naming an unknown probe or model reaches require_configured's "did you mean".
    probe=PROBE_NAME,
    model=MODEL_NAME,


def code_of(rule_name):
    """The library files rule `rule_name`'s script runs (the import closure of
    workflow/scripts/<rule>.py, tabprobe.code_inputs): a script rule notices edits to its script,
    not to the modules it imports, so they are its inputs: editing seeding.py re-scores, editing
    models.py re-runs inference, and editing the report re-runs nothing but the report."""
    script = WORKFLOW_ROOT / "workflow" / "scripts" / f"{rule_name}.py"
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in code_inputs.of_script(script)]


# ---------------------------------------------------------------- models


def configured(wildcards):
    """Stop with "did you mean" when a requested path names a model or probe not in config."""
    require_configured(config, **{k: getattr(wildcards, k) for k in ("model", "probe") if hasattr(wildcards, k)})


def model_config(wildcards):
    """A model's config block; an inoculated model has the settings of the model it came from."""
    if wildcards.model in INOCULATED:
        return config["models"][INOCULATED[wildcards.model][0]]
    configured(wildcards)
    return config["models"][wildcards.model]


def checkpoint_of(name):
    if name in INOCULATED:
        base, experiment, size = INOCULATED[name]
        return layout.inoculated_checkpoint(base, experiment, size)
    model = config["models"][name]
    if "causal" in model:
        return model["causal"]["checkpoint"]
    return model["checkpoint"] if "checkpoint" in model else layout.trained_model(name)


def get_checkpoint(wildcards):
    model_config(wildcards)  # a model of config, or an inoculated one: else "did you mean"
    return checkpoint_of(wildcards.model)


def get_checkpoint_files(wildcards):
    """A user's checkpoint is tracked by its files, not by its folder: weights re-saved into the
    same folder do not change the folder's modification time."""
    model = model_config(wildcards)
    if not ({"checkpoint", "causal"} & set(model)) or wildcards.model in INOCULATED:
        return []
    folder = Path(checkpoint_of(wildcards.model))
    return sorted(str(p) for p in folder.glob("*") if p.suffix in {".safetensors", ".json", ".txt", ".model"})


def get_shots(wildcards):
    """A causal LM's k-shot examples (select_shots), when it asks for any."""
    model = model_config(wildcards)
    return [layout.shots(wildcards.model)] if model.get("causal", {}).get("shots") else []


def get_shot_count(wildcards):
    """How many k-shot examples select_shots picks for a causal LM."""
    return model_config(wildcards)["causal"]["shots"]


def get_model_init(wildcards):
    return canonical(model_config(wildcards)["init"])


def get_model_premise(wildcards):
    return model_config(wildcards)["premise"]


def get_pair_order(wildcards):
    return model_config(wildcards)["pair_order"]


def reads_its_table(wildcards):
    return model_config(wildcards)["premise"] != "hypothesis_only"


def get_train_priority(wildcards):
    """A model that reads its table trains first: everything after training (its probes, the
    inoculation and controlled-variance fine-tunings) waits for it, while a hypothesis-only model
    is short and only its own inference waits (in a default run of 2026-11-26 minilm-hypo's
    training ran first and held both cores for 70 s)."""
    return 10 if reads_its_table(wildcards) else 9


def get_train_settings(wildcards):
    """This model's training block; `full: true` lifts the CPU caps (all of train and dev)."""
    train = dict(model_config(wildcards)["train"])
    full_epochs = train.pop("full_epochs", None)
    # Train on the inputs the model will be probed with, unless told otherwise.
    train["max_length"] = train.get("max_length") or model_max_length(config, model_config(wildcards))
    if FULL:
        train.update(examples=None, dev_examples=None, epochs=full_epochs or train["epochs"])
    return canonical(train)


def inference_settings(model):
    """How a model reads its inputs: only its own settings, so editing one model never re-runs
    another's jobs (and a derived model, inoculated or controlled-variance, reads as its base).
    A causal LM's `prompt` is its `causal:` block less the checkpoint (an input of its own)."""
    settings = {
        "premise": model["premise"],
        "max_length": model_max_length(config, model),
        "batch_size": model["batch_size"],
        "gpu_batch_tokens": model["gpu_batch_tokens"],
        "precision": model["precision"],
    }
    if "causal" in model:
        settings["prompt"] = {k: v for k, v in model["causal"].items() if k != "checkpoint"}
    else:
        settings.update(label_map=model.get("labels"), pair_order=model["pair_order"])
    return canonical(settings)


def get_inference_settings(wildcards):
    return inference_settings(model_config(wildcards))


# ---------------------------------------------------------------- data (data.smk)


def get_downloaded_infotabs(wildcards):
    """The downloaded copy, when there is no local one: then the download is an input."""
    return [] if config["infotabs_dir"] else [layout.downloaded_infotabs()]


_TABLES_DIGEST = {}


def infotabs_digest(wildcards):
    """A local copy enters the workflow by what it holds (download.split_digest), not by how its
    path is spelled: the same data given as a relative path, an absolute one, from a moved
    checkout or a cluster node that mounts it elsewhere is the same data and re-runs nothing,
    while an edited line or table (even one edited in place) re-checks and re-ingests its split."""
    root = config["infotabs_dir"]
    if not root:
        return f"official InfoTabS {INFOTABS_COMMIT}"
    if root not in _TABLES_DIGEST:
        _TABLES_DIGEST[root] = tables_digest(Path(root))
    return split_digest(root, wildcards.split, tables=_TABLES_DIGEST[root])


# ---------------------------------------------------------------- probes (probes.smk)


def get_probe_sources(wildcards):
    """The probe's module and the package modules it imports: a script rule does not notice
    edits to the modules it imports, so listing them as inputs makes an edited probe re-run
    (that probe only), and an edited helper re-run the probes that use it."""
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files(wildcards.probe)]


def get_human_counterfactuals(wildcards):
    """The split's hand-made counterfactual files (TSV first), for a probe that reads them: an
    edited line or table re-generates it. Without a local copy, the downloaded release."""
    if not get_probe(wildcards.probe).needs_human_counterfactuals:
        return {}
    root = config["counterfactuals_dir"]
    if not root:
        return {"counterfactuals": [layout.downloaded_counterfactuals()]}
    return {"counterfactuals": [str(p) for p in human_counterfactuals.split_files(root, wildcards.split)]}


def get_relevance(wildcards):
    """Which rows each hypothesis needs (rule find_relevant_rows), for probes that read it."""
    if get_probe(wildcards.probe).needs_relevance:
        return {"relevance": layout.relevance(wildcards.split)}
    return {}


def get_relevance_annotations(wildcards):
    relevance = config["relevance"]
    return {"annotations": relevance["annotations"]} if relevance["source"] == "annotations" else {}


def get_external_files(wildcards):
    """Every file of an external set, so an edited or added table re-reads it."""
    return [str(p) for p in files_below(config["probes"][wildcards.probe]["external"], (".tsv", ".json"))]


def get_original_examples(wildcards):
    """`original`'s examples of the split, where it runs: an external set counts its paired lines
    that `original`'s cap left without a prediction on their gold example."""
    if "original" in PROBES and wildcards.split in probe_splits(config, "original"):
        return {"original": layout.probe_examples("original", wildcards.split)}
    return {}


def get_external_folder(wildcards):
    return config["probes"][wildcards.probe]["external"]


def get_external_spec(wildcards):
    """{name: label_change} for an external set, {} for a registered probe: only this probe's
    entry, so adding an external set does not change the params of other probes' jobs."""
    return {wildcards.probe: EXTERNALS[wildcards.probe]} if wildcards.probe in EXTERNALS else {}


def get_parses(wildcards):
    """The split's spaCy parse, for probes that read it (Probe.needs_parse)."""
    if get_probe(wildcards.probe).needs_parse:
        return {"parses": layout.parses(wildcards.split)}
    return {}


def get_probe_options(wildcards):
    """The probe's own options; `splits` and `max_examples` are the workflow's."""
    return canonical(probe_options(config, wildcards.probe))


def get_curation_files(wildcards):
    """A person's curation decisions on this probe's examples (probes.<name>.curation): editing
    the file re-generates this probe, and only this probe."""
    return curation_files(config, wildcards.probe)


def get_probe_limit(wildcards):
    return probe_limit(config, wildcards.probe)


# ---------------------------------------------------------------- scoring (scoring.smk)


def get_score_inputs(wildcards):
    configured(wildcards)
    inputs = {
        "probe": layout.probe_examples(wildcards.probe, wildcards.split),
        "predictions": layout.predictions(wildcards.model, wildcards.probe, wildcards.split),
    }
    # Transition and evidence probes need the original predictions; the others use them, where
    # they cover the probe's examples (external sets: where they pair), for the paired drop.
    needed = get_probe(wildcards.probe).judged_by != "expected"
    if wildcards.probe != "original" and (needed or original_covers(config, wildcards.probe, wildcards.split)):
        inputs["original"] = layout.predictions(wildcards.model, "original", wildcards.split)
    # A premise model's accuracy is also compared, paired, with the hypothesis-only baseline's.
    if wildcards.probe == "original" and HYPOTHESIS_ONLY_MODELS and wildcards.model not in HYPOTHESIS_ONLY_MODELS:
        inputs["baseline"] = layout.predictions(HYPOTHESIS_ONLY_MODELS[0], "original", wildcards.split)
    return inputs


def get_pooled_members(wildcards):
    return [p for p in POOLED[wildcards.paper_table][wildcards.column] if wildcards.split in probe_splits(config, p)]


def get_pooled_inputs(wildcards):
    configured(wildcards)
    members = get_pooled_members(wildcards)
    split = wildcards.split
    inputs = {
        "probes": [layout.probe_examples(p, split) for p in members],
        "predictions": [layout.predictions(wildcards.model, p, split) for p in members],
    }
    if all(original_covers(config, p, split) for p in members):
        inputs["original"] = layout.predictions(wildcards.model, "original", split)
        # Paper Table 8 sets a premise model's counterfactual and original predictions beside a
        # hypothesis-only model's original ones.
        if (
            wildcards.paper_table == "table7"
            and HYPOTHESIS_ONLY_MODELS
            and wildcards.model not in HYPOTHESIS_ONLY_MODELS
        ):
            inputs["hypothesis_only"] = layout.predictions(HYPOTHESIS_ONLY_MODELS[0], "original", split)
    return inputs


# ---------------------------------------------------------------- report (report.smk)


def probe_runs():
    """(probe, split) for every probe on each of its splits."""
    return [(probe, split) for probe in PROBES for split in probe_splits(config, probe)]


def pooled_runs():
    """(table, column, split) for every pooled column with a member probe on that split."""
    return [
        (table, column, split)
        for table, columns in POOLED.items()
        for column, members in columns.items()
        for split in SPLITS
        if any(split in probe_splits(config, p) for p in members)
    ]


def relevance_splits():
    """Splits where some probe reads the relevance source."""
    return [s for s in SPLITS if any(get_probe(p).needs_relevance and s in probe_splits(config, p) for p in PROBES)]


# The jobs get {name: path} mappings, never a name to read back out of a path.
def relevance_summaries():
    return {split: layout.relevance_summary(split) for split in relevance_splits()}


def inference_stats():
    """{model: infer_nli's stats files of every probe and split}."""
    return {model: [layout.inference_stats(model, p, s) for p, s in probe_runs()] for model in MODELS}


def inoculation_summaries():
    """{experiment: score_inoculation's summary}."""
    if not INOCULATION:
        return {}
    return {e: layout.inoculation_summary(INOCULATION["model"], e) for e in INOCULATION_EXPERIMENTS}


def variance_summaries():
    """{model: collect_variance's summary}."""
    return {VARIANCE["model"]: layout.variance_summary(VARIANCE["model"])} if VARIANCE else {}


def get_results_inputs(wildcards):
    runs = probe_runs()
    return {
        "scores": [layout.scores(m, p, s) for m in MODELS for p, s in runs]
        + [layout.pooled_scores(t, m, c, s) for m in MODELS for t, c, s in pooled_runs()]
        + [p for p in inoculation_outputs() + variance_outputs() if p.endswith(".parquet")],
        "stats": [path for paths in inference_stats().values() for path in paths],
        "coverage": [layout.coverage(p, s) for p, s in runs],
        "relevance": list(relevance_summaries().values()),
    }


def get_report_inputs(wildcards):
    return {
        "results": layout.results_table(),
        "run": layout.run_record(),
        "coverage": [layout.coverage(p, s) for p, s in probe_runs()],
        "relevance": list(relevance_summaries().values()),
        "showcase": sorted({f for entry in showcase().values() for f in entry["files"].values()}),
        "inoculation": list(inoculation_summaries().values()),
        "variance": list(variance_summaries().values()),
    }


def showcase():
    """Each probe's split for the report's failing examples, and the files they are drawn from."""
    out = {}
    for probe in PROBES:
        if probe == "original":
            continue
        # A split `original` runs on, where there is one: the failures are judged against it
        # (partly covered is fine: examples without an original prediction are not judged).
        splits = probe_splits(config, probe)
        original_splits = probe_splits(config, "original") if "original" in config["probes"] else []
        split = layout.showcase_split([s for s in splits if s in original_splits] or splits)
        files = layout.showcase_inputs(probe, split, MODELS, with_original=split in original_splits)
        out[probe] = {"split": split, "files": files}
    return out


def get_final_output():
    return [layout.report_html(), layout.report_markdown()]


def report_category(wildcards):
    """The `snakemake --report` category of a figure: the report part it belongs to."""
    return DIMENSIONS[wildcards.dimension]
