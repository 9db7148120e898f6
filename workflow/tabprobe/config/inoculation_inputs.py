"""What the rules of inoculation.smk plan with, from a checked config: for inoculation (paper
section 7) and its Defense variant (numerical-qa-robustness section 4.3), the challenge splits and
members, the dev examples that pick a checkpoint, the learning-rate grid and the runs a shared
rate is chosen over, the models, originals, baselines and predictions score_inoculation compares;
for the controlled-variance experiment (diversify-your-datasets section 3), each job's inputs and
scores. Splits and probes come from the datasets' and probes' declarations; every path from
tabprobe.layout."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabprobe import layout
from tabprobe.config.checks import require_configured
from tabprobe.config.derived import checkpoint_of, training_dataset
from tabprobe.config.errors import ConfigError
from tabprobe.config.names import CHALLENGE_SPLIT, VARIANCE_PROBE, VARIANCE_TEST_SPLIT
from tabprobe.config.settings import (
    DEFENSE_BASELINE,
    INOCULATION_TABLES,
    dataset_splits,
    defense_probe,
    inoculated_name,
    inoculation_experiments,
    inoculation_plan,
    probe_dataset,
    probe_splits,
    variance_plan,
)
from tabprobe.data.datasets import Dataset, get_dataset
from tabprobe.probes import pooled_members, source_files

# ---------------------------------------------------------------- inoculation


def _plan(config: Mapping[str, Any]) -> dict[str, Any]:
    """The inoculation plan in force; a requested inoculation file without one is the user's to fix."""
    plan = inoculation_plan(config)
    if not plan:
        raise ConfigError(
            "an inoculation file was requested, but config runs no inoculation (`inoculation.model` is not set); "
            "name the model to inoculate, e.g. `inoculation: {model: minilm-struct}`"
        )
    return plan


def inoculation_dataset(config: Mapping[str, Any]) -> Dataset:
    """The dataset an inoculation runs on: the one its model learnt (derived.training_dataset).
    Its train split holds the challenge examples the model is fine-tuned on, its dev split picks
    the checkpoint, and its baseline probe's examples are the Original column."""
    return get_dataset(training_dataset(config, _plan(config)["model"]))


def inoculation_baseline(config: Mapping[str, Any]) -> str:
    """The unperturbed probe of the inoculation's dataset (its Dataset.baseline_probe)."""
    return inoculation_dataset(config).baseline_probe


def challenge_splits(config: Mapping[str, Any]) -> list[str]:
    """Paper Tables 10 and 12: the challenge set on alpha1, and with `train_rows` (under `full:
    true`) on train, what the model was fine-tuned on ("Train Set (w/o NEUTRAL)")."""
    plan = inoculation_plan(config)
    return ([inoculation_dataset(config).train_split] if plan and plan["train_rows"] else []) + [CHALLENGE_SPLIT]


def inoculation_splits(config: Mapping[str, Any]) -> list[str]:
    """Paper Tables 9 and 11: accuracy on the original splits the report covers (those of the
    dataset's splits its baseline probe runs on)."""
    baseline = inoculation_baseline(config)
    if baseline not in config["probes"]:
        return []
    splits = probe_splits(config, baseline)
    return [s for s in dataset_splits(config, inoculation_dataset(config).name) if s in splits]


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
    train = inoculation_dataset(config).train_split
    columns = pooled_members(INOCULATION_TABLES[experiment], list(config["probes"]))
    return {
        column: {
            p: layout.probe_examples(p, split) for p in probes if split == train or split in probe_splits(config, p)
        }
        for column, probes in columns.items()
    }


def challenge_train_members(config: Mapping[str, Any], experiment: str) -> dict[str, dict[str, str]]:
    """challenge_members on the dataset's train split: what inoculate fine-tunes on."""
    return challenge_members(config, experiment, inoculation_dataset(config).train_split)


def challenge_members_by_split(config: Mapping[str, Any], experiment: str) -> dict[str, dict[str, dict[str, str]]]:
    """{challenge split: challenge_members}: paper Tables 10 and 12 report alpha1 and train."""
    return {split: challenge_members(config, experiment, split) for split in challenge_splits(config)}


def inoculation_table(experiment: str) -> str:
    """The paper table whose pooled probes the experiment trains on; a Defense's own name."""
    return INOCULATION_TABLES.get(experiment, experiment)


def inoculation_dev(config: Mapping[str, Any], experiment: str) -> dict[str, str]:
    """Early stopping's dev examples: the dataset's dev split, or for a Defense its probe's
    examples on it (the paper's "Validate on val*")."""
    dataset = inoculation_dataset(config)
    probe = defense_probe(experiment)
    if probe:
        return {"dev": layout.probe_examples(probe, dataset.dev_split)}
    return {
        "dev": dataset.examples(dataset.dev_split),
        "dev_tables": dataset.tables(dataset.dev_split),
    }


def inoculation_inputs(config: Mapping[str, Any], model: str, experiment: str) -> dict[str, Any]:
    """What one inoculate job reads: the model's checkpoint, every challenge probe's train
    examples, and the dev examples (inoculation_dev)."""
    require_configured(config, model=model)
    members = challenge_train_members(config, experiment)
    return {
        "checkpoint": checkpoint_of(config, model),
        "challenge": sorted(path for probes in members.values() for path in probes.values()),
        **inoculation_dev(config, experiment),
    }


def learning_rate_text(learning_rate: float) -> str:
    """A learning rate as the grid's folders name it (lr5e-05)."""
    return f"{learning_rate:g}"


def inoculation_grid(config: Mapping[str, Any], model: str, experiment: str, size: str | int) -> dict[str, str]:
    """{learning rate: inoculated checkpoint} over the grid, in config order."""
    return {
        learning_rate_text(lr): layout.inoculated_checkpoint(model, experiment, size, learning_rate_text(lr))
        for lr in _plan(config)["learning_rates"]
    }


def inoculation_shared_grid(config: Mapping[str, Any], model: str, experiment: str) -> dict[str, dict[str, str]]:
    """{"<experiment>/<size>": {learning rate: checkpoint}} of every run the kept rate is chosen
    over ("shared": the paper's one rate for all), or {} ("per_size": each run its own best)."""
    plan = _plan(config)
    if plan["learning_rate_selection"] != "shared":
        return {}
    return {
        f"{other}/{size}": inoculation_grid(config, model, other, size)
        for other in selection_group(config, experiment)
        for size in plan["sizes"]
    }


def inoculation_grid_dirs(config: Mapping[str, Any], model: str, experiment: str, size: str | int) -> list[str]:
    """Every checkpoint select_inoculation compares: its own run's grid, and those the shared
    rate is chosen over."""
    shared = [path for grid in inoculation_shared_grid(config, model, experiment).values() for path in grid.values()]
    return sorted(set(inoculation_grid(config, model, experiment, size).values()) | set(shared))


def selection_group(config: Mapping[str, Any], experiment: str) -> list[str]:
    """The experiments whose runs share one learning rate under `learning_rate_selection: shared`:
    the paper's inoculation experiments together ("used throughout"); a Defense alone, its dev
    being its own perturbed one."""
    if defense_probe(experiment):
        return [experiment]
    return list(_plan(config)["experiments"])


def inoculation_models(config: Mapping[str, Any], model: str, experiment: str) -> dict[int, str]:
    """{size: model name}; size 0 is the model before inoculation."""
    sizes = _plan(config)["sizes"]
    return {0: model, **{size: inoculated_name(model, experiment, size) for size in sizes}}


def inoculation_originals(config: Mapping[str, Any]) -> dict[str, str]:
    """{split: the baseline probe's examples} of paper Tables 9 and 11's splits."""
    baseline = inoculation_baseline(config)
    return {s: layout.probe_examples(baseline, s) for s in inoculation_splits(config)}


def challenge_originals(config: Mapping[str, Any]) -> dict[str, str]:
    """{challenge split: the baseline probe's examples}: the paired Original column of Tables 10 and 12."""
    baseline = inoculation_baseline(config)
    return {s: layout.probe_examples(baseline, s) for s in challenge_splits(config)}


def inoculation_baselines(config: Mapping[str, Any], experiment: str) -> dict[str, str]:
    """{probe: its alpha1 examples} scored beside a Defense: num_comparative, whose comparisons
    the numeric perturbations rewrite (numerical-qa-robustness's "Original" row)."""
    if defense_probe(experiment) and DEFENSE_BASELINE in config["probes"]:
        return {DEFENSE_BASELINE: layout.probe_examples(DEFENSE_BASELINE, CHALLENGE_SPLIT)}
    return {}


def _predicted_splits(config: Mapping[str, Any], experiment: str) -> dict[str, set[str]]:
    """{probe: the splits its predictions are scored on}: the baseline probe on the original and
    challenge splits, each challenge member on the challenge splits it has examples of, and a
    Defense's baseline on alpha1."""
    by_probe = {inoculation_baseline(config): set(inoculation_splits(config)) | set(challenge_splits(config))}
    for split in challenge_splits(config):
        for probes in challenge_members(config, experiment, split).values():
            for p in probes:
                by_probe.setdefault(p, set()).add(split)
    for p in inoculation_baselines(config, experiment):
        by_probe.setdefault(p, set()).add(CHALLENGE_SPLIT)
    return by_probe


def inoculation_predictions(config: Mapping[str, Any], model: str, experiment: str) -> dict:
    """{model: {probe: {split: predictions}}}: every model of the experiment (inoculation_models)
    on the original splits, on the challenge probes and the originals of train and alpha1, and on
    the baselines; splits in the dataset's order."""
    order = inoculation_dataset(config).splits
    by_probe = _predicted_splits(config, experiment)
    return {
        name: {p: {s: layout.predictions(name, p, s) for s in order if s in splits} for p, splits in by_probe.items()}
        for name in inoculation_models(config, model, experiment).values()
    }


def inoculation_best(config: Mapping[str, Any], model: str, experiment: str) -> dict[int, str]:
    """{size: the checkpoint select_inoculation kept}."""
    sizes = _plan(config)["sizes"]
    return {size: layout.inoculated_checkpoint(model, experiment, size) for size in sizes}


def inoculation_score_inputs(config: Mapping[str, Any], model: str, experiment: str) -> dict[str, list[str]]:
    """Every file score_inoculation reads, by kind; its params name them (the functions above)."""
    require_configured(config, model=model)
    members = challenge_members_by_split(config, experiment)
    predictions = inoculation_predictions(config, model, experiment)
    return {
        "originals": list(inoculation_originals(config).values()),
        "challenge_originals": list(challenge_originals(config).values()),
        "baselines": list(inoculation_baselines(config, experiment).values()),
        "members": sorted(
            p for by_column in members.values() for probes in by_column.values() for p in probes.values()
        ),
        "predictions": sorted(
            path for by_probe in predictions.values() for by_split in by_probe.values() for path in by_split.values()
        ),
        "best": list(inoculation_best(config, model, experiment).values()),
    }


def inoculation_outputs(config: Mapping[str, Any]) -> list[str]:
    """score_inoculation's scores and summary of each experiment ([] without inoculation)."""
    plan = inoculation_plan(config)
    if not plan:
        return []
    return [
        path
        for experiment in inoculation_experiments(plan)
        for path in (
            layout.inoculation_scores(plan["model"], experiment),
            layout.inoculation_summary(plan["model"], experiment),
        )
    ]


def inoculation_summaries(config: Mapping[str, Any]) -> dict[str, str]:
    """{experiment: score_inoculation's summary} ({} without inoculation)."""
    plan = inoculation_plan(config)
    if not plan:
        return {}
    return {e: layout.inoculation_summary(plan["model"], e) for e in inoculation_experiments(plan)}


# ---------------------------------------------------------------- controlled variance


def _variance(config: Mapping[str, Any]) -> dict[str, Any]:
    """The controlled-variance plan in force; a requested file of the experiment without one is the user's to fix."""
    plan = variance_plan(config)
    if not plan:
        raise ConfigError(
            "a controlled-variance file was requested, but config runs no such experiment "
            "(`controlled_variance.model` is not set); name its model, e.g. `controlled_variance: {model: minilm-struct}`"
        )
    return plan


def variance_dataset() -> Dataset:
    """The dataset the experiment's examples come from: its probe's (names.VARIANCE_PROBE)."""
    return get_dataset(probe_dataset(VARIANCE_PROBE))


def variance_probe_sources(code_dir: str) -> list[str]:
    """The generator of the experiment's examples and the modules it imports, under `code_dir`
    (probes are loaded by name, so the rules' code inputs do not see it): editing it re-runs the
    experiment, as it re-runs the probe's own jobs."""
    return [str(Path(code_dir) / "tabprobe" / path) for path in source_files(VARIANCE_PROBE)]


def variance_inputs(config: Mapping[str, Any], model: str) -> dict[str, str]:
    """What one train_variance job reads: the model's checkpoint, and the dataset's train split
    (the examples are drawn from its tables) and dev split (which picks the checkpoint)."""
    require_configured(config, model=model)
    dataset = variance_dataset()
    return {
        "checkpoint": checkpoint_of(config, model),
        "train": dataset.examples(dataset.train_split),
        "train_tables": dataset.tables(dataset.train_split),
        "dev": dataset.examples(dataset.dev_split),
        "dev_tables": dataset.tables(dataset.dev_split),
    }


def variance_test_inputs(config: Mapping[str, Any], model: str, size: str | int, resample: str | int) -> dict[str, str]:
    """What one score_variance job reads: the model it tests (size 0: the model before
    fine-tuning) and the test split's examples and tables."""
    require_configured(config, model=model)
    dataset = variance_dataset()
    return {
        "checkpoint": (
            checkpoint_of(config, model) if int(size) == 0 else layout.variance_checkpoint(model, size, resample)
        ),
        "test": dataset.examples(VARIANCE_TEST_SPLIT),
        "test_tables": dataset.tables(VARIANCE_TEST_SPLIT),
    }


def variance_job_scores(config: Mapping[str, Any], model: str) -> dict[int, dict[int, str]]:
    """{size: {repeat: score_variance's file}}, size 0 (the model before) first."""
    plan = _variance(config)
    return {
        size: {r: layout.variance_job_scores(model, size, r) for r in range(1, plan["resamples"] + 1)}
        for size in [0, *plan["train_sizes"]]
    }


def variance_job_scores_list(config: Mapping[str, Any], model: str) -> list[str]:
    """variance_job_scores's files, as collect_variance's inputs."""
    return [path for by_repeat in variance_job_scores(config, model).values() for path in by_repeat.values()]


def variance_outputs(config: Mapping[str, Any]) -> list[str]:
    """collect_variance's scores and summary ([] without the experiment)."""
    plan = variance_plan(config)
    return [layout.variance_scores(plan["model"]), layout.variance_summary(plan["model"])] if plan else []


def variance_summaries(config: Mapping[str, Any]) -> dict[str, str]:
    """{model: collect_variance's summary} ({} without the experiment)."""
    plan = variance_plan(config)
    return {plan["model"]: layout.variance_summary(plan["model"])} if plan else {}
