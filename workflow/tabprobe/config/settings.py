"""The settings in force for a probe or an experiment, read from a (checked) config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe.config.defaults import (
    FULL_INOCULATION,
    FULL_VARIANCE,
    INOCULATION_DEFAULTS,
    VARIANCE_DEFAULTS,
    schema_default,
)
from tabprobe.data.datasets import dataset_of_training, get_dataset, paper_dataset
from tabprobe.probes import REGISTRY, get_probe, is_fixed_set

# read by the workflow, not passed to the probe
WORKFLOW_PROBE_OPTIONS = (
    "splits",
    "full_splits",
    "max_examples",
    "min_examples",
    "external",
    "label_change",
    "curation",
)
# The challenge family of each experiment and the paper table pooling its probes.
INOCULATION_TABLES = {"hypothesis": "table4", "counterfactual": "table7"}
# Defense (numerical-qa-robustness section 4.3), a variant of inoculation: the numeric
# perturbations it may fine-tune on (`inoculation.defense`), each its own experiment
# "defense-<probe>", and the probe whose comparisons they perturb (the paper's "Original" row).
DEFENSE_PROBES = ("num_noise", "num_distribution", "num_logic")
DEFENSE_BASELINE = "num_comparative"
DEFENSE_PREFIX = "defense-"


def external_probes(config: dict[str, Any]) -> dict[str, str | None]:
    """The external probe sets of config (`probes: {name: {external: folder}}`): name -> label_change."""
    probes = config.get("probes") if isinstance(config.get("probes"), dict) else {}
    return {
        name: (settings or {}).get("label_change")
        for name, settings in probes.items()
        if isinstance(settings, dict) and "external" in settings
    }


def report_splits(config: Mapping[str, Any]) -> list[str]:
    """The splits the report covers: `full_splits` under `full: true` where config gives them (the
    default: alpha1 on the CPU budget, all three test splits at the paper's scale), else `splits`."""
    if config.get("full") and config.get("full_splits"):
        return list(config["full_splits"])
    return list(config["splits"])


def dataset_splits(config: Mapping[str, Any], dataset: str) -> list[str]:
    """The splits a dataset's probes run on where a probe names none: under `full: true` its full
    splits where config gives them, else its splits, else its defaults (data/datasets.py,
    `Dataset.config_keys`: the paper dataset's are the report's, `splits`)."""
    declared = get_dataset(dataset)
    if config.get("full") and declared.setting(config, "full_splits"):
        return list(declared.setting(config, "full_splits"))
    splits = declared.setting(config, "splits") or declared.default_splits
    if not splits and declared.config_keys is not None:
        # A top-level key the schema fills in, missing only where the config check took out a value
        # it refused: there is nothing to derive from (the check then adds no follow-on message).
        raise KeyError(declared.config_key("splits"))
    return list(splits)


def probe_splits(config: Mapping[str, Any], probe: str) -> list[str]:
    """The splits a probe runs on: under `full: true` its `full_splits` where it gives them, else
    its `splits`, else its dataset's (dataset_splits)."""
    settings = config["probes"].get(probe) or {}
    if config.get("full") and settings.get("full_splits"):
        return list(settings["full_splits"])
    return list(settings.get("splits") or dataset_splits(config, probe_dataset(probe)))


def baseline_probe(probe: str) -> str:
    """The unperturbed probe `probe` is compared with: its dataset's (`Dataset.baseline_probe`)."""
    return get_dataset(probe_dataset(probe)).baseline_probe


def probe_dataset(probe: str) -> str:
    """The dataset a probe's examples come from: the first it declares. An external set is in the
    paper dataset's format, and so is a name no probe has (the config check reports it as unknown)."""
    return get_probe(probe).datasets[0] if probe in REGISTRY else paper_dataset().name


def model_datasets(config: Mapping[str, Any], model: str) -> list[str]:
    """The datasets whose probes a model answers: its `datasets`, else the dataset it was trained
    on, else the paper's (data/datasets.py)."""
    block = config["models"][model]
    if block.get("datasets"):
        return list(block["datasets"])
    return [dataset_of_training(block.get("train")).name]


# A probe's `max_examples: baseline`: as many examples as its baseline probe (`original`) draws.
BASELINE_CAP = "baseline"


def probe_limit(config: dict[str, Any], probe: str) -> int | None:
    """The probe's cap per split: its own `max_examples`, else the top-level one. None (every
    example) under `full: true` and under a top-level null: a null there says every example, and
    the probes' own caps (config.yaml's 1000 for `original`, 60 for evidence_selection) are the
    CPU budget's, lifted with it as `full: true` lifts them."""
    if config.get("full") or config.get("max_examples") is None:
        return None
    settings = config["probes"].get(probe) or {}
    cap = settings["max_examples"] if "max_examples" in settings else config["max_examples"]
    if cap == BASELINE_CAP:
        # As many as its baseline draws (a probe that applies to few examples takes every example
        # the baseline predicted): the baseline's own cap, which follows wherever config sets it.
        baseline = baseline_probe(probe)
        if baseline == probe or baseline not in config["probes"]:
            return config["max_examples"]
        return probe_limit(config, baseline)
    return cap


def probe_min_examples(config: Mapping[str, Any], probe: str) -> int:
    """The fewest examples `probe` must hold on a split before the report reads a verdict, a
    scorecard cell or a summary figure from its scores there: its own `min_examples`, else the
    top-level one (the schema's default where config has none). Neither `full: true` nor a lifted
    cap changes it: more examples pass it, they do not move it."""
    probes = config.get("probes") if isinstance(config.get("probes"), Mapping) else {}
    settings = probes.get(probe) if isinstance(probes.get(probe), Mapping) else {}
    if settings.get("min_examples") is not None:
        return settings["min_examples"]
    return config.get("min_examples") or schema_default("min_examples")


def min_examples_record(config: Mapping[str, Any]) -> dict[str, Any]:
    """What run.json records of the minimum n and the report reads: the default (every results-table
    probe config does not name, the pooled columns of paper Tables 4 and 7 among them) and each
    configured probe's."""
    return {
        "default": config.get("min_examples") or schema_default("min_examples"),
        "probes": {probe: probe_min_examples(config, probe) for probe in config.get("probes") or {}},
    }


def model_max_length(config: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    """Tokens per input of a model, in training and inference: `full_max_length` where given when
    `full: true` (the paper's 512 for a premise model, which the CPU default cuts to 128), else
    `max_length`."""
    return (config.get("full") and model.get("full_max_length")) or model["max_length"]


def curation_files(config: Mapping[str, Any], probe: str) -> list[str]:
    """The curation TSVs a probe's examples are curated with (`probes.<name>.curation`)."""
    probes = config.get("probes") if isinstance(config.get("probes"), Mapping) else {}
    settings = probes.get(probe) if isinstance(probes.get(probe), Mapping) else {}
    files = settings.get("curation") or []
    return [files] if isinstance(files, str) else list(files)


def probe_options(config: Mapping[str, Any], probe: str) -> dict[str, Any]:
    """A probe's own options from config: its entry without the workflow's (`splits`,
    `max_examples`, ...)."""
    probes = config.get("probes") if isinstance(config.get("probes"), Mapping) else {}
    settings = probes.get(probe) if isinstance(probes.get(probe), Mapping) else {}
    return {k: v for k, v in settings.items() if k not in WORKFLOW_PROBE_OPTIONS}


def _plan(
    config: Mapping[str, Any], key: str, defaults: Mapping[str, Any], full: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The settings in force of an optional config block: its defaults, then `full` when `full:
    true`, then the keys the user wrote (so a user's `resamples: 3` holds under `full: true`
    too); None when the block names no model."""
    settings = config.get(key) or {}
    if not settings.get("model"):
        return None
    return {**defaults, **(full if config.get("full") else {}), **settings}


def plan_layers(config: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """For run.json: each setting of the inoculation and controlled-variance blocks in force, with
    the layer it came from: "config" (a key the config wrote; it holds under `full: true` too),
    "full" (the paper's, under `full: true`) or "default" (the CPU budget's)."""
    out = {}
    for key, defaults, full in (
        ("inoculation", INOCULATION_DEFAULTS, FULL_INOCULATION),
        ("controlled_variance", VARIANCE_DEFAULTS, FULL_VARIANCE),
    ):
        plan = _plan(config, key, defaults, full)
        if plan is None:
            continue
        written = config.get(key) or {}
        out[key] = {
            name: {
                "value": value,
                "from": "config" if name in written else "full" if config.get("full") and name in full else "default",
            }
            for name, value in plan.items()
        }
    return out


def inoculation_plan(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The inoculation settings in force (`full: true` gives the paper's grid), or None when
    config asks for none."""
    plan = _plan(config, "inoculation", INOCULATION_DEFAULTS, FULL_INOCULATION)
    if plan:
        plan["sizes"] = sorted(plan["sizes"])
    return plan


def inoculation_experiments(plan: Mapping[str, Any] | None) -> list[str]:
    """The experiments an inoculation plan runs: its `experiments`, then a Defense per probe of
    `defense` (named "defense-<probe>")."""
    if not plan:
        return []
    return [*plan["experiments"], *(f"{DEFENSE_PREFIX}{p}" for p in plan.get("defense") or [])]


def defense_probe(experiment: str) -> str | None:
    """The numeric probe a Defense experiment fine-tunes on; None for a plain inoculation."""
    return experiment[len(DEFENSE_PREFIX) :] if experiment.startswith(DEFENSE_PREFIX) else None


def variance_plan(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The controlled-variance settings in force (`full: true` gives the paper's repeats, test
    ranges and learning curve), or None when config asks for none. `train_sizes` ascending."""
    plan = _plan(config, "controlled_variance", VARIANCE_DEFAULTS, FULL_VARIANCE)
    if plan and isinstance(plan.get("train_sizes"), list):
        plan["train_sizes"] = sorted(plan["train_sizes"])
    return plan


def inoculated_name(model: str, experiment: str, size: int) -> str:
    """The name the inoculated model's predictions are filed under: results/predictions/<name>/."""
    return f"{model}.ino-{experiment}-{size}"


def original_covers(config: dict[str, Any], probe: str, split: str) -> bool:
    """Whether `original` has predictions for every gold example `probe` sees on `split`: it runs
    there with a cap at least as large (capped subsets are nested, see perturb.select_examples).
    A set made beforehand (an external set, the hand-made counterfactuals) pairs with whichever
    gold examples `original` predicted, so for it `original` running on the split is enough.
    (Another dataset's `original` is its own baseline probe: baseline_probe.)"""
    baseline = baseline_probe(probe)
    if baseline not in config["probes"] or split not in probe_splits(config, baseline):
        return False
    fixed = probe in external_probes(config) or (probe in REGISTRY and is_fixed_set(probe))
    return fixed or cap_covered(probe_limit(config, probe), probe_limit(config, baseline))


def cap_covered(cap: int | None, original_cap: int | None) -> bool:
    """Whether a probe capped at `cap` sees only examples that `original` (capped at
    `original_cap`) predicted; None is no cap."""
    return original_cap is None or (cap is not None and cap <= original_cap)
