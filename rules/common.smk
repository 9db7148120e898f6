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
from tabprobe.config import check as check_config
from tabprobe.infotabs import SPLITS
from tabprobe.probes import get_probe, module_path

SCHEMA = "../workflow/schemas/config.schema.yaml"
# Readable errors naming each bad key first; then snakemake's validate fills in defaults.
check_config(config, workflow.source_path(SCHEMA))
validate(config, SCHEMA)

PROBES = list(config["probes"])
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
# `full: true` probes every example; the default caps each split for a CPU workstation.
MAX_EXAMPLES = None if FULL else config["max_examples"]
TRAINED_MODELS = [m for m, c in config["models"].items() if "train" in c]
INITIALISED_MODELS = [m for m, c in config["models"].items() if "init" in c]


def _one_of(names):
    # (?!) never matches: a rule whose model list is empty then matches no file.
    return "|".join(re.escape(n) for n in names) or "(?!)"


wildcard_constraints:
    split=_one_of(SPLITS),
    probe=_one_of(PROBES),
    model=_one_of(MODELS),


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

def get_probe_module(wildcards):
    """The probe's source file: a script rule does not notice edits to the modules it imports,
    so listing it as input makes an edited probe re-run (that probe only)."""
    return str(Path(LIBRARY_DIR) / "tabprobe" / module_path(wildcards.probe))


def get_parses(wildcards):
    """The split's spaCy parse, for probes that read it (Probe.needs_parse)."""
    if get_probe(wildcards.probe).needs_parse:
        return {"parses": f"results/parses/{wildcards.split}.spacy"}
    return {}


def get_probe_options(wildcards):
    return canonical(config["probes"][wildcards.probe] or {})


# ---------------------------------------------------------------- models

def model_config(wildcards):
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
    inputs = {
        "probe": f"results/probes/{wildcards.probe}/{wildcards.split}.parquet",
        "predictions": f"results/predictions/{wildcards.model}/{wildcards.probe}/{wildcards.split}.parquet",
    }
    if get_probe(wildcards.probe).judged_by == "transitions":
        inputs["original"] = f"results/predictions/{wildcards.model}/original/{wildcards.split}.parquet"
    return inputs


# ---------------------------------------------------------------- report

def get_report_inputs(wildcards):
    return {
        "scores": expand("results/scores/{model}/{probe}/{split}.parquet", model=MODELS, probe=PROBES, split=REPORT_SPLITS),
        "coverage": expand("results/probes/{probe}/{split}.coverage.json", probe=PROBES, split=REPORT_SPLITS),
        "stats": expand("results/predictions/{model}/{probe}/{split}.json", model=MODELS, probe=PROBES, split=REPORT_SPLITS),
    }


def get_final_output():
    return ["results/report/index.html", "results/report/report.md"]
