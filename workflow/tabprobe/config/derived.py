"""What follows from a checked config, for the rules to plan with: the models of each kind and
the inoculated ones derived from them, a model's config block, checkpoint, checkpoint files,
k-shot examples and training data, the (probe, split) and pooled runs, the inputs a scoring job
compares, the report's showcase and the inference statistics and relevance summaries it reads.
The inoculation and controlled-variance experiments' are in config/inoculation_inputs.py, the
report's file lists in config/report_inputs.py. Every path comes from tabprobe.layout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe import layout
from tabprobe.config.checks import require_configured
from tabprobe.config.settings import (
    baseline_probe,
    inoculated_name,
    inoculation_experiments,
    inoculation_plan,
    model_datasets,
    original_covers,
    probe_dataset,
    probe_splits,
)
from tabprobe.config.trained_from import base_model, resolved_base
from tabprobe.data.datasets import dataset_of_training, get_dataset, paper_dataset, resolve
from tabprobe.models.checkpoints import PACKAGE_SCHEME, resolve_location
from tabprobe.probes import POOLED_TABLES, get_probe, pooled_members

# The files of a user's checkpoint folder that its jobs are re-run for when they change.
CHECKPOINT_FILE_SUFFIXES = {".safetensors", ".json", ".txt", ".model"}

# ---------------------------------------------------------------- a dataset's check and ingest


def dataset_downloads(config: Mapping[str, Any], dataset: str, wildcards: Any = None) -> list[str]:
    """The files another rule makes that the dataset's check reads (`Ingest.downloads`: a download,
    where config names no local copy)."""
    declared = get_dataset(dataset).ingest.downloads
    return list(resolve(declared)(config)) if declared else []


def dataset_check_settings(config: Mapping[str, Any], dataset: str) -> dict[str, Any]:
    """The check's own settings (`Ingest.check_settings`: job argument -> config key)."""
    return {argument: config[key] for argument, key in get_dataset(dataset).ingest.check_settings.items()}


def dataset_digest(config: Mapping[str, Any], dataset: str, wildcards: Any) -> str:
    """What the dataset's copy of a split holds, by content (`Ingest.digest`): the same data given
    as a relative path, an absolute one, from a moved checkout or a cluster node that mounts it
    elsewhere re-runs nothing, while an edited line or table re-checks and re-ingests its split."""
    return resolve(get_dataset(dataset).ingest.digest)(config, wildcards.split)


def dataset_modules(dataset: str, job: str) -> list[str]:
    """The modules a dataset's check or ingest job runs beside the generic script (its job
    function's, and the one that says which folder it reads): code inputs of the rule."""
    ingest = get_dataset(dataset).ingest
    jobs = {"check": ingest.check, "ingest": ingest.ingest}
    return [target.partition(":")[0] for target in (jobs[job], ingest.root) if target]


# ---------------------------------------------------------------- models


def models_of_kind(config: Mapping[str, Any], kind: str) -> list[str]:
    """The models whose block has `kind` ("train", "causal", "endpoint", "init", "checkpoint"), in config order."""
    return [m for m, c in config["models"].items() if kind in c]


def unpacked_models(config: Mapping[str, Any]) -> list[str]:
    """The served models whose server reads a GGUF file unpacked into a folder (`serve.unpack`)."""
    return [m for m, c in config["models"].items() if ((c.get("endpoint") or {}).get("serve") or {}).get("unpack")]


def prompt_block(model: Mapping[str, Any]) -> Mapping[str, Any]:
    """A prompted model's prompting keys (template, verbalisers, shots, ...): its `causal:` block,
    or its `endpoint:` block for a served model; empty for a classifier."""
    return model.get("causal") or model.get("endpoint") or {}


def hypothesis_only_models(config: Mapping[str, Any], dataset: str | None = None) -> list[str]:
    """The hypothesis-only models that answer `dataset`'s probes (the paper dataset's by default),
    those trained on it first: their
    original predictions paper Table 8 sets beside a premise model's (and a premise model's
    accuracy is compared with theirs, paired)."""
    dataset = dataset or paper_dataset().name
    answering = [
        m
        for m, c in config["models"].items()
        if c.get("premise") == "hypothesis_only" and dataset in model_datasets(config, m)
    ]
    return sorted(answering, key=lambda m: model_datasets(config, m)[0] != dataset)


def model_runs(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(model, probe, split) for every model on every probe of a dataset it answers
    (model_datasets), on each of the probe's splits."""
    return [
        (model, probe, split)
        for model in config["models"]
        for probe, split in probe_runs(config)
        if probe_dataset(probe) in model_datasets(config, model)
    ]


def inoculated_models(config: Mapping[str, Any]) -> dict[str, tuple[str, str, int]]:
    """{name: (model, experiment, size)} of each inoculated model (paper section 7), probed under
    its own name, <model>.ino-<experiment>-<size>. A Defense (numerical-qa-robustness) is an
    experiment too: defense-<numeric probe>."""
    plan = inoculation_plan(config)
    return {
        inoculated_name(plan["model"], experiment, size): (plan["model"], experiment, size)
        for experiment in inoculation_experiments(plan)
        for size in plan["sizes"]
    }


def model_config(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """A model's config block; an inoculated model has the settings of the model it came from. A
    name config does not know (a typo in a requested path) is a ConfigError with "did you mean"."""
    inoculated = inoculated_models(config)
    if name not in inoculated:
        require_configured(config, model=name)
    return config["models"][inoculated[name][0] if name in inoculated else name]


def checkpoint_of(config: Mapping[str, Any], name: str) -> str:
    """The checkpoint a model is probed with: an inoculated one's, a causal LM's or a user's own,
    else the one the workflow trains (or initialises)."""
    inoculated = inoculated_models(config)
    if name in inoculated:
        return layout.inoculated_checkpoint(*inoculated[name])
    model = config["models"][name]
    if "causal" in model:
        return model["causal"]["checkpoint"]
    return model["checkpoint"] if "checkpoint" in model else layout.trained_model(name)


def checkpoint_path(config: Mapping[str, Any], name: str) -> str:
    """The checkpoint as infer_nli's input: a folder, or one GGUF file, where a pkg:// location
    names one inside a package. Other paths stay as written: a trained model's must match its
    rule's output to the letter."""
    model_config(config, name)  # a model of config, or an inoculated one: else "did you mean"
    location = checkpoint_of(config, name)
    return str(resolve_location(location)) if location.startswith(PACKAGE_SCHEME) else location


def checkpoint_files(config: Mapping[str, Any], name: str) -> list[str]:
    """The files a user's checkpoint (`checkpoint`, or a causal LM's) is tracked by, not its
    folder: weights re-saved into the same folder do not change the folder's modification time. A
    GGUF checkpoint is its one file; a checkpoint the workflow makes is an output, with no files
    to list."""
    model = model_config(config, name)
    if not ({"checkpoint", "causal"} & set(model)) or name in inoculated_models(config):
        return []
    folder = resolve_location(checkpoint_of(config, name))
    if folder.is_file():
        return [str(folder)]
    return sorted(str(p) for p in folder.glob("*") if p.suffix in CHECKPOINT_FILE_SUFFIXES)


def shots(config: Mapping[str, Any], name: str) -> list[str]:
    """A prompted model's k-shot examples (rule select_shots), when it asks for any."""
    return [layout.shots(name)] if prompt_block(model_config(config, name)).get("shots") else []


def shot_pool(config: Mapping[str, Any], name: str) -> dict[str, str]:
    """The examples and tables select_shots draws a prompted model's k shots from: the train split
    of the dataset it would learn (training_dataset)."""
    dataset = get_dataset(training_dataset(config, name))
    return {
        "train": dataset.examples(dataset.train_split),
        "train_tables": dataset.tables(dataset.train_split),
    }


def is_served(config: Mapping[str, Any], name: str) -> bool:
    """Whether the model is a served one (`endpoint:`), whose unparsed answers are counted."""
    return "endpoint" in model_config(config, name)


def unpacked_folder(config: Mapping[str, Any], name: str) -> str | None:
    """The folder a served model's GGUF file is unpacked into for its server (rule unpack_gguf),
    when its `serve.unpack` names one; else None."""
    return layout.unpacked_checkpoint(name) if name in unpacked_models(config) else None


def unpacked_inputs(config: Mapping[str, Any], name: str) -> list[str]:
    """unpacked_folder as query_endpoint's input: [] when there is none."""
    folder = unpacked_folder(config, name)
    return [folder] if folder else []


def unpack_source(config: Mapping[str, Any], name: str) -> str:
    """The GGUF file `serve.unpack` names (pkg:// resolved), rule unpack_gguf's input."""
    return str(resolve_location(model_config(config, name)["endpoint"]["serve"]["unpack"]))


def training_dataset(config: Mapping[str, Any], name: str) -> str:
    """The dataset a model learns: its `train.dataset`, else the paper's (a model given as a
    checkpoint counts as having learnt it too; as settings.model_datasets reads it)."""
    return dataset_of_training(model_config(config, name).get("train")).name


def training_data(config: Mapping[str, Any], name: str) -> dict[str, str]:
    """The examples and tables train_model reads: its dataset's train split and the dev split its
    checkpoints are chosen on, as that dataset declares them (Dataset.train_split and dev_split), and
    the checkpoint of the model it starts from where that is another model of the run
    (config/trained_from.py)."""
    dataset = get_dataset(training_dataset(config, name))
    data = {
        "train": dataset.examples(dataset.train_split),
        "train_tables": dataset.tables(dataset.train_split),
        "dev": dataset.examples(dataset.dev_split),
        "dev_tables": dataset.tables(dataset.dev_split),
    }
    train = model_config(config, name)["train"]
    if base_model(train):  # trained from another model of the run: its training goes first
        data["base"] = resolved_base(train)
    return data


# ---------------------------------------------------------------- probes, pooled columns, scoring


def pooled_probes(config: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """{paper table: {column: probes}}: paper Tables 4 and 7 pool the probes of a family that
    keep the label, and those that flip it."""
    return {table: pooled_members(table, list(config["probes"])) for table in POOLED_TABLES}


def probe_runs(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(probe, split) for every probe on each of its splits."""
    return [(probe, split) for probe in config["probes"] for split in probe_splits(config, probe)]


def pooled_runs(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(table, column, split) for every pooled column with a member probe on that split."""
    return [
        (table, column, split)
        for table, columns in pooled_probes(config).items()
        for column, members in columns.items()
        for split in paper_dataset().splits
        if any(split in probe_splits(config, p) for p in members)
    ]


def pooled_model_runs(config: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """(table, model, column, split) for every model on every pooled run (pooled_runs) whose
    members are of a dataset the model answers, model by model."""
    return [
        (table, model, column, split)
        for model in config["models"]
        for table, column, split in pooled_runs(config)
        if probe_dataset(pooled_split_members(config, table, column, split)[0]) in model_datasets(config, model)
    ]


def pooled_split_members(config: Mapping[str, Any], paper_table: str, column: str, split: str) -> list[str]:
    """The probes of a pooled column that run on `split`."""
    return [p for p in pooled_probes(config)[paper_table][column] if split in probe_splits(config, p)]


def relevance_splits(config: Mapping[str, Any]) -> list[str]:
    """Splits where some probe reads the relevance source."""
    return [
        s
        for s in paper_dataset().splits
        if any("relevance" in get_probe(p).needs and s in probe_splits(config, p) for p in config["probes"])
    ]


def relevance_summaries(config: Mapping[str, Any]) -> dict[str, str]:
    """{split: find_relevant_rows's summary} of each split some probe reads the relevance source on."""
    return {split: layout.relevance_summary(split) for split in relevance_splits(config)}


def inference_stats(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """{model: infer_nli's statistics files of every probe and split it answers (model_runs)},
    every model of config a key, in config order."""
    stats: dict[str, list[str]] = {model: [] for model in config["models"]}
    for model, probe, split in model_runs(config):
        stats[model].append(layout.inference_stats(model, probe, split))
    return stats


def score_inputs(config: Mapping[str, Any], model: str, probe: str, split: str) -> dict[str, str]:
    """The files score_probe compares: the probe's examples and the model's predictions on them,
    and where they are read, `original`'s predictions and the hypothesis-only baseline's. A model
    or probe config does not name is a ConfigError with "did you mean"."""
    require_configured(config, model=model, probe=probe)
    inputs = {
        "probe": layout.probe_examples(probe, split),
        "predictions": layout.predictions(model, probe, split),
    }
    # Transition and evidence probes need the original predictions; the others use them, where
    # they cover the probe's examples (external sets: where they pair), for the paired drop.
    # Another dataset's `original` is its own baseline probe (baseline_probe).
    needed = get_probe(probe).judged_by != "expected"
    original = baseline_probe(probe)
    if probe != original and (needed or original_covers(config, probe, split)):
        inputs["original"] = layout.predictions(model, original, split)
    # A premise model's accuracy is also compared, paired, with the hypothesis-only baseline's.
    baselines = hypothesis_only_models(config, probe_dataset(probe))
    if probe == original and baselines and model not in baselines:
        inputs["baseline"] = layout.predictions(baselines[0], original, split)
    return inputs


def pooled_inputs(config: Mapping[str, Any], paper_table: str, model: str, column: str, split: str) -> dict[str, Any]:
    """The files score_pooled_column compares: the member probes' examples and predictions, and
    `original`'s predictions where they cover every member (with, in paper Table 7, a
    hypothesis-only model's)."""
    require_configured(config, model=model)
    members = pooled_split_members(config, paper_table, column, split)
    inputs = {
        "probes": [layout.probe_examples(p, split) for p in members],
        "predictions": [layout.predictions(model, p, split) for p in members],
    }
    if all(original_covers(config, p, split) for p in members):
        inputs["original"] = layout.predictions(model, "original", split)
        # Paper Table 8 sets a premise model's counterfactual and original predictions beside a
        # hypothesis-only model's original ones.
        baselines = hypothesis_only_models(config)
        if paper_table == "table7" and baselines and model not in baselines:
            inputs["hypothesis_only"] = layout.predictions(baselines[0], "original", split)
    return inputs


def showcase(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each probe's split for the report's failing examples, and the files they are drawn from."""
    out = {}
    for probe in config["probes"]:
        original = baseline_probe(probe)
        if probe == original:
            continue
        # A split `original` runs on, where there is one: the failures are judged against it
        # (partly covered is fine: examples without an original prediction are not judged).
        splits = probe_splits(config, probe)
        original_splits = probe_splits(config, original) if original in config["probes"] else []
        dataset = get_dataset(probe_dataset(probe))
        split = layout.showcase_split(
            [s for s in splits if s in original_splits] or splits, dataset.report.showcase_order
        )
        models = [m for m in config["models"] if dataset.name in model_datasets(config, m)]
        files = layout.showcase_inputs(
            probe,
            split,
            models,
            with_original=split in original_splits,
            original=original,
            folder=dataset.data_folder,
        )
        out[probe] = {"split": split, "files": files}
    return out
