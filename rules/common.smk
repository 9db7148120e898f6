# Helpers shared by the rules: config validation, wildcard constraints, input functions.
# No rules here.

import re
import sys
from pathlib import Path

# The library lives in workflow/tabprobe (pip install -e . installs it). This checkout's copy
# comes first for the Snakefile itself; the jobs find it through the workflow/scripts/tabprobe
# link (Snakemake puts a script's folder on sys.path), also inside a conda env on a cluster.
LIBRARY_DIR = str(Path(workflow.basedir) / "workflow")
sys.path.insert(0, LIBRARY_DIR)

from snakemake.utils import validate
from tabprobe.config import MODEL_NAME, PROBE_NAME, check as check_config, external_probes, original_covers, probe_limit, probe_options, probe_splits, require_configured
from tabprobe.infotabs import SPLITS
from tabprobe.report_layout import DIMENSIONS, showcase_inputs, showcase_split
from tabprobe.probes import POOLED_COLUMNS, POOLED_TABLES, get_probe, pooled_members, register_external, source_files

SCHEMA = "../workflow/schemas/config.schema.yaml"
# Readable errors naming each bad key (and the file and line that set it) first; then
# snakemake's validate fills in defaults. Snakemake merges config.yaml, then each --configfile.
_CLI_CONFIGFILES = [str(f) for f in workflow.config_settings.configfiles]
_CONFIG_SOURCES = [] if workflow.config_settings.replace_workflow_config else [
    str(f) for f in workflow.configfiles if str(f) not in _CLI_CONFIGFILES]
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


def library_files(*modules):
    """Library modules a rule's results depend on. A script rule does not notice edits to the
    modules it imports, so they are listed as inputs: editing scoring.py re-scores, editing
    models.py re-runs inference, and so on."""
    return [str(Path(LIBRARY_DIR) / "tabprobe" / f"{m}.py") for m in modules]


# ---------------------------------------------------------------- data

def infotabs_root():
    """The InfoTabS folder every stage reads: the user's local copy, or the downloaded one."""
    return config["infotabs_dir"] or "resources/infotabs"


def get_infotabs_files(wildcards):
    """Inputs of ingest_infotabs. With a local copy, the split's TSV is tracked as a file (an
    edited TSV re-runs that split) and the tables folder by its modification time (a table file
    edited in place is not noticed: re-run with --forcerun ingest_infotabs); otherwise the
    download is the input."""
    if not config["infotabs_dir"]:
        return {"dataset": "resources/infotabs"}
    root = Path(config["infotabs_dir"])
    from tabprobe.infotabs import split_tsv, tables_dir

    return {"tsv": str(split_tsv(root, wildcards.split)), "tables": str(tables_dir(root))}


# ---------------------------------------------------------------- probes

def get_probe_sources(wildcards):
    """The probe's module and the package modules it imports: a script rule does not notice
    edits to the modules it imports, so listing them as inputs makes an edited probe re-run
    (that probe only), and an edited helper re-run the probes that use it."""
    return [str(Path(LIBRARY_DIR) / "tabprobe" / path) for path in source_files(wildcards.probe)]


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
    folder = Path(config["probes"][wildcards.probe]["external"])
    return sorted(str(p) for p in folder.rglob("*") if p.suffix in {".tsv", ".json"})


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


def get_probe_limit(wildcards):
    return probe_limit(config, wildcards.probe)


# ---------------------------------------------------------------- models

def configured(wildcards):
    """Stop with "did you mean" when a requested path names a model or probe not in config."""
    require_configured(config, **{k: getattr(wildcards, k) for k in ("model", "probe") if hasattr(wildcards, k)})


def model_config(wildcards):
    configured(wildcards)
    return config["models"][wildcards.model]


def get_checkpoint(wildcards):
    model = model_config(wildcards)
    return model["checkpoint"] if "checkpoint" in model else f"resources/models/{wildcards.model}"


def get_checkpoint_files(wildcards):
    """A user's checkpoint is tracked by its files, not by its folder: weights re-saved into the
    same folder do not change the folder's modification time."""
    model = model_config(wildcards)
    if "checkpoint" not in model:
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


def get_report_inputs(wildcards):
    runs = probe_runs()
    return {
        "scores": [f"results/scores/{m}/{p}/{s}.parquet" for m in MODELS for p, s in runs],
        "coverage": [f"results/probes/{p}/{s}.coverage.json" for p, s in runs],
        "stats": [f"results/predictions/{m}/{p}/{s}.json" for m in MODELS for p, s in runs],
        "pooled": [f"results/pooled/{t}/{m}/{c}/{s}.parquet" for m in MODELS for t, c, s in pooled_runs()],
        "relevance": [f"results/relevance/{s}.json" for s in relevance_splits()],
        "showcase": sorted({f for entry in showcase().values() for f in entry["files"].values()}),
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
