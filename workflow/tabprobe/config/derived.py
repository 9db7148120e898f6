"""What follows from a checked config, for the rules to plan with: the models of each kind and
the inoculated ones derived from them, a model's config block and checkpoint, the (probe, split)
and pooled runs, the report's showcase, the inputs a scoring job compares, and the splits and
probes of the inoculation experiments. Every path comes from tabprobe.layout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe import layout
from tabprobe.config.names import CHALLENGE_SPLIT
from tabprobe.config.settings import (
    INOCULATION_TABLES,
    baseline_probe,
    defense_probe,
    inoculated_name,
    inoculation_experiments,
    inoculation_plan,
    model_datasets,
    original_covers,
    probe_dataset,
    probe_splits,
    report_splits,
)
from tabprobe.data.infotabs.reading import SPLITS
from tabprobe.probes import POOLED_TABLES, get_probe, pooled_members

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


def hypothesis_only_models(config: Mapping[str, Any], dataset: str = "infotabs") -> list[str]:
    """The hypothesis-only models that answer `dataset`'s probes, those trained on it first: their
    original predictions paper Table 8 sets beside a premise model's (and a premise model's
    accuracy is compared with theirs, paired)."""
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
    """A model's config block; an inoculated model has the settings of the model it came from."""
    inoculated = inoculated_models(config)
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
        for split in SPLITS
        if any(split in probe_splits(config, p) for p in members)
    ]


def pooled_split_members(config: Mapping[str, Any], paper_table: str, column: str, split: str) -> list[str]:
    """The probes of a pooled column that run on `split`."""
    return [p for p in pooled_probes(config)[paper_table][column] if split in probe_splits(config, p)]


def relevance_splits(config: Mapping[str, Any]) -> list[str]:
    """Splits where some probe reads the relevance source."""
    return [
        s
        for s in SPLITS
        if any(get_probe(p).needs_relevance and s in probe_splits(config, p) for p in config["probes"])
    ]


def score_inputs(config: Mapping[str, Any], model: str, probe: str, split: str) -> dict[str, str]:
    """The files score_probe compares: the probe's examples and the model's predictions on them,
    and where they are read, `original`'s predictions and the hypothesis-only baseline's."""
    inputs = {
        "probe": layout.probe_examples(probe, split),
        "predictions": layout.predictions(model, probe, split),
    }
    # Transition and evidence probes need the original predictions; the others use them, where
    # they cover the probe's examples (external sets: where they pair), for the paired drop.
    # A TabFact probe's `original` is tf_original (baseline_probe).
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
        split = layout.showcase_split([s for s in splits if s in original_splits] or splits)
        models = [m for m in config["models"] if probe_dataset(probe) in model_datasets(config, m)]
        files = layout.showcase_inputs(
            probe,
            split,
            models,
            with_original=split in original_splits,
            original=original,
            dataset=probe_dataset(probe),
        )
        out[probe] = {"split": split, "files": files}
    return out


# ---------------------------------------------------------------- inoculation


def challenge_splits(config: Mapping[str, Any]) -> list[str]:
    """Paper Tables 10 and 12: the challenge set on alpha1, and with `train_rows` (under `full:
    true`) on train, what the model was fine-tuned on ("Train Set (w/o NEUTRAL)")."""
    plan = inoculation_plan(config)
    return (["train"] if plan and plan["train_rows"] else []) + [CHALLENGE_SPLIT]


def inoculation_splits(config: Mapping[str, Any]) -> list[str]:
    """Paper Tables 9 and 11: accuracy on the original splits the report covers."""
    return [
        s for s in report_splits(config) if "original" in config["probes"] and s in probe_splits(config, "original")
    ]


def challenge_members(config: Mapping[str, Any], experiment: str, split: str) -> dict[str, dict[str, str]]:
    """{column: {probe: its examples on split}} for the probes pooled into the experiment's table:
    on train (what the experiment fine-tunes on, and the train rows of paper Tables 10 and 12)
    every such probe's, generated for it whether or not the probe is scored on train (the
    report's Table 4 and 7 train rows: the probe's splits); on the test split, the probes that
    run there. A Defense has one column, its numeric probe's examples (train*, and test* on
    alpha1), generated for it on every split it reads."""
    probe = defense_probe(experiment)
    if probe:
        return {"defense": {probe: layout.probe_examples(probe, split)}}
    columns = pooled_members(INOCULATION_TABLES[experiment], list(config["probes"]))
    return {
        column: {
            p: layout.probe_examples(p, split) for p in probes if split == "train" or split in probe_splits(config, p)
        }
        for column, probes in columns.items()
    }


def selection_group(config: Mapping[str, Any], experiment: str) -> list[str]:
    """The experiments whose runs share one learning rate under `learning_rate_selection: shared`:
    the paper's inoculation experiments together ("used throughout"); a Defense alone, its dev
    being its own perturbed one."""
    if defense_probe(experiment):
        return [experiment]
    return list(inoculation_plan(config)["experiments"])
