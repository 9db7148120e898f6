# Helpers shared by the rules: config validation, wildcard constraints, input functions.
# No rules here.

import os
import re
import sys
from pathlib import Path

# The library lives in workflow/tabprobe. The workflow imports this checkout's copy, and so do its
# jobs (code_inputs.jobs_import_from: an installed tabprobe would otherwise come first for them).
LIBRARY_DIR = str(Path(workflow.basedir) / "workflow")
sys.path.insert(0, LIBRARY_DIR)
# The library as the rules' code inputs name it: relative to the working folder, as Snakemake
# records inputs, so a copied or moved checkout (or a cluster node that mounts it elsewhere)
# finds its finished results up to date.
CODE_DIR = os.path.relpath(LIBRARY_DIR)

from snakemake.utils import validate
from tabprobe.config import INOCULATION_TABLES, MODEL_NAME, PROBE_NAME, check as check_config, curation_files, type_command_line_values, external_probes, inoculated_name, inoculation_plan, variance_plan, original_covers, probe_limit, probe_options, probe_splits, require_configured
from tabprobe import code_inputs
from tabprobe.download import INFOTABS_COMMIT, split_digest, tables_digest
from tabprobe.external import files_below
from tabprobe.infotabs import SPLITS
from tabprobe.report_layout import DIMENSIONS, showcase_inputs, showcase_split
from tabprobe.probes import POOLED_COLUMNS, POOLED_TABLES, get_probe, pooled_members, register_external, source_files

code_inputs.jobs_import_from(LIBRARY_DIR)

SCHEMA = "../workflow/schemas/config.schema.yaml"
# Readable errors naming each bad key (and the file and line that set it) first; then
# snakemake's validate fills in defaults. Snakemake merges config.yaml, then each --configfile.
_CLI_CONFIGFILES = [str(f) for f in workflow.config_settings.configfiles]
_CONFIG_SOURCES = [] if workflow.config_settings.replace_workflow_config else [
    str(f) for f in workflow.configfiles if str(f) not in _CLI_CONFIGFILES]
type_command_line_values(config, workflow.config_settings.config)
check_config(config, workflow.source_path(SCHEMA), sources=_CONFIG_SOURCES + _CLI_CONFIGFILES,
             schema_shown="workflow/schemas/config.schema.yaml", overrides=workflow.config_settings.config)
validate(config, SCHEMA)

# External probe sets (folders in InfoTabS format named in config) become probes like the rest.
EXTERNALS = external_probes(config)
for _name, _label_change in EXTERNALS.items():
    register_external(_name, _label_change)
PROBES = list(config["probes"])
GENERATED_PROBES = [p for p in PROBES if p not in EXTERNALS]
MODELS = list(config["models"])
REPORT_SPLITS = list(config["splits"])


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
INITIALISED_MODELS = [m for m, c in config["models"].items() if "init" in c]


def _one_of(names):
    # (?!) never matches: a rule whose model list is empty then matches no file.
    return "|".join(re.escape(n) for n in names) or "(?!)"


# Paper Tables 4 and 7 pool the probes of a family that keep the label, and those that flip it.
POOLED = {table: pooled_members(table, PROBES) for table in POOLED_TABLES}
# The model whose original predictions paper Table 8 sets beside a premise model's.
HYPOTHESIS_ONLY_MODELS = [m for m, c in config["models"].items() if c.get("premise") == "hypothesis_only"]


wildcard_constraints:
    split=_one_of(SPLITS),
    table=_one_of(POOLED_TABLES),
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
    script = Path(workflow.basedir) / "workflow" / "scripts" / f"{rule_name}.py"
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in code_inputs.of_script(script)]


# ---------------------------------------------------------------- data

def get_downloaded_infotabs(wildcards):
    """The downloaded copy, when there is no local one: then the download is an input."""
    return [] if config["infotabs_dir"] else ["resources/infotabs"]


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


# ---------------------------------------------------------------- probes

def get_probe_sources(wildcards):
    """The probe's module and the package modules it imports: a script rule does not notice
    edits to the modules it imports, so listing them as inputs makes an edited probe re-run
    (that probe only), and an edited helper re-run the probes that use it."""
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files(wildcards.probe)]


def get_relevance(wildcards):
    """Which rows each hypothesis needs (rule find_relevant_rows), for probes that read it."""
    if get_probe(wildcards.probe).needs_relevance:
        return {"relevance": f"results/relevance/{wildcards.split}.parquet"}
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
        return {"original": f"results/probes/original/{wildcards.split}.parquet"}
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
        return {"parses": f"results/parses/{wildcards.split}.spacy"}
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
        return f"resources/inoculated/{base}/{experiment}/{size}/best"
    model = config["models"][name]
    return model["checkpoint"] if "checkpoint" in model else f"resources/models/{name}"


def get_checkpoint(wildcards):
    model_config(wildcards)  # a model of config, or an inoculated one: else "did you mean"
    return checkpoint_of(wildcards.model)


def get_checkpoint_files(wildcards):
    """A user's checkpoint is tracked by its files, not by its folder: weights re-saved into the
    same folder do not change the folder's modification time."""
    model = model_config(wildcards)
    if "checkpoint" not in model or wildcards.model in INOCULATED:
        return []
    folder = Path(model["checkpoint"])
    return sorted(str(p) for p in folder.glob("*") if p.suffix in {".safetensors", ".json", ".txt", ".model"})


def get_model_init(wildcards):
    return canonical(model_config(wildcards)["init"])


def get_model_premise(wildcards):
    return model_config(wildcards)["premise"]


def get_pair_order(wildcards):
    return model_config(wildcards)["pair_order"]


def get_train_settings(wildcards):
    """This model's training block; `full: true` lifts the CPU caps (all of train and dev)."""
    train = dict(model_config(wildcards)["train"])
    full_epochs = train.pop("full_epochs", None)
    # Train on the inputs the model will be probed with, unless told otherwise.
    train["max_length"] = train.get("max_length") or model_config(wildcards)["max_length"]
    if FULL:
        train.update(examples=None, dev_examples=None, epochs=full_epochs or train["epochs"])
    return canonical(train)


def get_inference_settings(wildcards):
    """Only this model's settings, so editing one model never re-runs another's jobs."""
    model = model_config(wildcards)
    return canonical(
        {
            "premise": model["premise"],
            "label_map": model.get("labels"),
            "max_length": model["max_length"],
            "batch_size": model["batch_size"],
            "precision": model["precision"],
            "pair_order": model["pair_order"],
        }
    )


# ---------------------------------------------------------------- scoring

def get_score_inputs(wildcards):
    configured(wildcards)
    inputs = {
        "probe": f"results/probes/{wildcards.probe}/{wildcards.split}.parquet",
        "predictions": f"results/predictions/{wildcards.model}/{wildcards.probe}/{wildcards.split}.parquet",
    }
    # Transition and evidence probes need the original predictions; the others use them, where
    # they cover the probe's examples (external sets: where they pair), for the paired drop.
    needed = get_probe(wildcards.probe).judged_by != "expected"
    if wildcards.probe != "original" and (needed or original_covers(config, wildcards.probe, wildcards.split)):
        inputs["original"] = f"results/predictions/{wildcards.model}/original/{wildcards.split}.parquet"
    # A premise model's accuracy is also compared, paired, with the hypothesis-only baseline's.
    if wildcards.probe == "original" and HYPOTHESIS_ONLY_MODELS and wildcards.model not in HYPOTHESIS_ONLY_MODELS:
        inputs["baseline"] = f"results/predictions/{HYPOTHESIS_ONLY_MODELS[0]}/original/{wildcards.split}.parquet"
    return inputs


def get_pooled_members(wildcards):
    return [p for p in POOLED[wildcards.table][wildcards.column] if wildcards.split in probe_splits(config, p)]


def get_pooled_inputs(wildcards):
    configured(wildcards)
    members = get_pooled_members(wildcards)
    split = wildcards.split
    inputs = {
        "probes": [f"results/probes/{p}/{split}.parquet" for p in members],
        "predictions": [f"results/predictions/{wildcards.model}/{p}/{split}.parquet" for p in members],
    }
    if all(original_covers(config, p, split) for p in members):
        inputs["original"] = f"results/predictions/{wildcards.model}/original/{split}.parquet"
        # Paper Table 8 sets a premise model's counterfactual and original predictions beside a
        # hypothesis-only model's original ones.
        if wildcards.table == "table7" and HYPOTHESIS_ONLY_MODELS and wildcards.model not in HYPOTHESIS_ONLY_MODELS:
            inputs["hypothesis_only"] = f"results/predictions/{HYPOTHESIS_ONLY_MODELS[0]}/original/{split}.parquet"
    return inputs


def pooled_runs():
    """(table, column, split) for every pooled column with a member probe on that split."""
    return [(table, column, split) for table, columns in POOLED.items() for column, members in columns.items()
            for split in SPLITS if any(split in probe_splits(config, p) for p in members)]


def relevance_splits():
    """Splits where some probe reads the relevance source."""
    return [s for s in SPLITS if any(get_probe(p).needs_relevance and s in probe_splits(config, p) for p in PROBES)]


# ---------------------------------------------------------------- report

def probe_runs():
    """(probe, split) for every probe on each of its splits."""
    return [(probe, split) for probe in PROBES for split in probe_splits(config, probe)]


def get_results_inputs(wildcards):
    runs = probe_runs()
    return {
        "scores": [f"results/scores/{m}/{p}/{s}.parquet" for m in MODELS for p, s in runs]
                  + [f"results/pooled/{t}/{m}/{c}/{s}.parquet" for m in MODELS for t, c, s in pooled_runs()]
                  + [p for p in inoculation_outputs() + variance_outputs() if p.endswith(".parquet")],
        "stats": [f"results/predictions/{m}/{p}/{s}.json" for m in MODELS for p, s in runs],
        "coverage": [f"results/probes/{p}/{s}.coverage.json" for p, s in runs],
        "relevance": [f"results/relevance/{s}.json" for s in relevance_splits()],
    }


def get_report_inputs(wildcards):
    runs = probe_runs()
    return {
        "results": "results/results.parquet",
        "run": "results/run.json",
        "coverage": [f"results/probes/{p}/{s}.coverage.json" for p, s in runs],
        "relevance": [f"results/relevance/{s}.json" for s in relevance_splits()],
        "showcase": sorted({f for entry in showcase().values() for f in entry["files"].values()}),
        "inoculation": [p for p in inoculation_outputs() if p.endswith(".json")],
        "variance": [p for p in variance_outputs() if p.endswith(".json")],
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
        split = showcase_split([s for s in splits if s in original_splits] or splits)
        files = showcase_inputs(probe, split, MODELS, with_original=split in original_splits)
        out[probe] = {"split": split, "files": files}
    return out


def get_final_output():
    return ["results/report/index.html", "results/report/report.md"]


def report_category(wildcards):
    """The `snakemake --report` category of a figure: the report part it belongs to."""
    return DIMENSIONS[wildcards.dimension]


# ---------------------------------------------------------------- inoculation (paper section 7)

# The settings in force (`full: true`: the paper's grid), or None; each inoculated model is
# probed under its own name, <model>.ino-<experiment>-<size>.
INOCULATION = inoculation_plan(config)
INOCULATED = {}
if INOCULATION:
    for _experiment in INOCULATION["experiments"]:
        for _size in INOCULATION["sizes"]:
            INOCULATED[inoculated_name(INOCULATION["model"], _experiment, _size)] = (INOCULATION["model"], _experiment, _size)
# Paper Tables 9 and 11: accuracy on the original splits the report covers.
INOCULATION_SPLITS = [s for s in REPORT_SPLITS if "original" in config["probes"] and s in probe_splits(config, "original")]
CHALLENGE_SPLIT = "alpha1"


def lr_text(learning_rate):
    return f"{learning_rate:g}"


def challenge_members(experiment, split):
    """{column: {probe: its examples on split}} for the probes pooled into the experiment's table."""
    columns = pooled_members(INOCULATION_TABLES[experiment], PROBES)
    return {column: {p: f"results/probes/{p}/{split}.parquet" for p in probes if split in probe_splits(config, p)}
            for column, probes in columns.items()}


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


def get_inoculation_model(wildcards):
    """How the inoculated model reads its inputs: as the model it comes from."""
    model = config["models"][wildcards.model]
    return canonical({"premise": model["premise"], "max_length": model["max_length"], "precision": model["precision"],
                      "pair_order": model["pair_order"], "label_map": model.get("labels"), "batch_size": model["batch_size"]})


def get_inoculation_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {
        "checkpoint": checkpoint_of(wildcards.model),
        "challenge": sorted(p for probes in challenge_members(wildcards.experiment, "train").values() for p in probes.values()),
        "dev": "results/data/dev.parquet",
        "dev_tables": "results/data/dev.tables.parquet",
    }


def get_inoculation_grid(wildcards):
    """{learning rate: inoculated checkpoint} over the grid, in config order."""
    return {lr_text(lr): f"resources/inoculated/{wildcards.model}/{wildcards.experiment}/{wildcards.size}/lr{lr_text(lr)}"
            for lr in INOCULATION["learning_rates"]}


def get_inoculation_grid_dirs(wildcards):
    return list(get_inoculation_grid(wildcards).values())


def get_inoculated_models(wildcards):
    """{size: model name}; size 0 is the model before inoculation."""
    return {0: wildcards.model, **{size: inoculated_name(wildcards.model, wildcards.experiment, size)
                                   for size in INOCULATION["sizes"]}}


def get_inoculation_originals(wildcards):
    return {s: f"results/probes/original/{s}.parquet" for s in INOCULATION_SPLITS}


def get_inoculation_predictions(wildcards):
    """{model: {probe: {split: predictions}}}: every model of the experiment on the original
    splits and on the challenge probes of alpha1."""
    members = [p for probes in challenge_members(wildcards.experiment, CHALLENGE_SPLIT).values() for p in probes]
    return {model: {"original": {s: f"results/predictions/{model}/original/{s}.parquet" for s in INOCULATION_SPLITS},
                    **{p: {CHALLENGE_SPLIT: f"results/predictions/{model}/{p}/{CHALLENGE_SPLIT}.parquet"} for p in members}}
            for model in get_inoculated_models(wildcards).values()}


def get_inoculation_best(wildcards):
    return {size: f"resources/inoculated/{wildcards.model}/{wildcards.experiment}/{size}/best" for size in INOCULATION["sizes"]}


def get_inoculation_score_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    predictions = get_inoculation_predictions(wildcards)
    return {
        "originals": list(get_inoculation_originals(wildcards).values()),
        "members": sorted(p for probes in challenge_members(wildcards.experiment, CHALLENGE_SPLIT).values() for p in probes.values()),
        "predictions": sorted(path for by_probe in predictions.values() for by_split in by_probe.values() for path in by_split.values()),
        "best": list(get_inoculation_best(wildcards).values()),
    }


def inoculation_outputs():
    if not INOCULATION:
        return []
    return [f"results/inoculation/{INOCULATION['model']}/{e}.{ext}" for e in INOCULATION["experiments"] for ext in ("parquet", "json")]


def get_inoculation_plan():
    """What the report says of the inoculation grid (None: no inoculation)."""
    return canonical({**INOCULATION, "full": FULL}) if INOCULATION else None


# ---------------------------------------------------------------- controlled variance

VARIANCE = variance_plan(config)


def get_variance_settings(wildcards):
    return canonical({k: v for k, v in VARIANCE.items() if k != "model"})


def get_variance_inputs(wildcards):
    require_configured(config, model=wildcards.model)
    return {"checkpoint": checkpoint_of(wildcards.model), "train": "results/data/train.parquet",
            "train_tables": "results/data/train.tables.parquet", "dev": "results/data/dev.parquet",
            "dev_tables": "results/data/dev.tables.parquet"}


def get_variance_repeats(wildcards):
    return {r: f"resources/variance/{wildcards.model}/r{r}" for r in range(1, VARIANCE["resamples"] + 1)}


def get_variance_repeat_dirs(wildcards):
    return list(get_variance_repeats(wildcards).values())


def get_variance_base(wildcards):
    require_configured(config, model=wildcards.model)
    return checkpoint_of(wildcards.model)


def variance_outputs():
    return [f"results/variance/{VARIANCE['model']}.{ext}" for ext in ("parquet", "json")] if VARIANCE else []
