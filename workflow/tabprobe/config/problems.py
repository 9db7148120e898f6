"""Problems the schema cannot see: probes and models that do not fit together, files that do
not exist. Each is a "config key a.b.c: ..." line, which checks.check locates in the files."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabprobe.config.dataset_problems import dataset_problems
from tabprobe.config.defaults import model_default
from tabprobe.config.endpoint_problems import endpoint_problems
from tabprobe.config.names import PROBE_NAME
from tabprobe.config.settings import (
    INOCULATION_TABLES,
    WORKFLOW_PROBE_OPTIONS,
    baseline_probe,
    cap_covered,
    curation_files,
    external_probes,
    inoculation_plan,
    model_max_length,
    probe_dataset,
    probe_limit,
    probe_options,
    probe_splits,
    variance_plan,
)
from tabprobe.config.table_premise import table_premise_problems
from tabprobe.config.trained_from import base_model_problems
from tabprobe.data.datasets import forget, get_dataset, register, resolve
from tabprobe.errors import TabprobeError, did_you_mean
from tabprobe.probes import REGISTRY, get_probe, option_problems


def _transition_probe_coverage(config, probes, transition_probes) -> list[str]:
    """A transition probe compares with its dataset's baseline probe (`original`) on
    the same examples: that must run on every split it runs on, with a cap at least as large
    (subsets are nested, see perturb)."""
    if not isinstance(config.get("splits"), list):
        return []
    problems = []
    for name in transition_probes:
        baseline = baseline_probe(name)
        if baseline not in probes:
            continue  # said by semantic_problems / dataset_problems
        # A split of another dataset is not one for the baseline to run on too (dataset_problems says so).
        own = get_dataset(probe_dataset(name)).splits
        missing = [s for s in probe_splits(config, name) if s in own and s not in probe_splits(config, baseline)]
        if missing:
            problems.append(
                f"config key probes.{name}.splits: `{baseline}` does not run on {', '.join(missing)}; "
                f"add them to probes.{baseline}.splits"
            )
        cap, baseline_cap = probe_limit(config, name), probe_limit(config, baseline)
        if not cap_covered(cap, baseline_cap):
            problems.append(
                f"config key probes.{name}.max_examples: {cap or 'all'} examples need {baseline} predictions, "
                f"but `{baseline}` is capped at {baseline_cap}"
            )
    return problems


def _curation_problems(name: str, externals, files: list[str], config: Mapping[str, Any]) -> list[str]:
    """A curation file belongs to a generated probe judged by expected labels, must exist, be
    readable, and decide examples the probe can meet (curation.uid_problems)."""
    from tabprobe.errors import InputDataError
    from tabprobe.probes.curation import read_decisions, uid_problems

    if name in externals:
        return [f"config key probes.{name}.curation: an external probe set is read as it is; curate its TSV itself"]
    if name in REGISTRY and get_probe(name).judged_by != "expected":
        return [
            f"config key probes.{name}.curation: {name} is judged by {get_probe(name).judged_by}, not by expected "
            "labels, so there is nothing to curate"
        ]
    missing = [
        f"config key probes.{name}.curation: {path} is not a file (write it with `tabprobe curate {name}`)"
        for path in files
        if not Path(path).is_file()
    ]
    if missing:
        return missing
    try:
        decisions = read_decisions(files)
    except InputDataError as err:
        return [f"config key probes.{name}.curation: {problem}" for problem in err.problems]
    return [
        f"config key probes.{name}.curation: {problem}"
        for problem in uid_problems(
            decisions,
            probe_splits(config, name),
            _example_lines(config, name),
            get_dataset(probe_dataset(name)).splits,
            get_dataset(probe_dataset(name)).labels,
        )
    ]


def _example_lines(config: Mapping[str, Any], probe: str):
    """split -> the line numbers of the probe's dataset's examples in its copy, where it says
    (`Dataset.example_lines`; None: not known before its jobs run)."""
    dataset = get_dataset(probe_dataset(probe))
    if dataset.example_lines:
        return resolve(dataset.example_lines)(config)
    return lambda split: None


def _option_problems(name: str, externals, config) -> list[str]:
    """Options a probe does not declare (Probe.options), or values outside their schema: without
    this, `num_distractor_rows: {row: 5}` would be stored in run.json and do nothing."""
    options = probe_options(config, name)
    if name in externals:
        return [
            f"config key probes.{name}.{key}: an external probe set takes no option {key!r}; it takes "
            f"{', '.join(k for k in WORKFLOW_PROBE_OPTIONS if k != 'curation')}"
            for key in options
        ]
    if name not in REGISTRY:
        return []  # "no such probe", said below
    return [
        f"config key probes.{name}.{key}: {problem}"
        for key, problem in option_problems(get_probe(name), options, also_known=WORKFLOW_PROBE_OPTIONS)
    ]


# The ways config gives a model: exactly one per model.
MODEL_KINDS = ("checkpoint", "train", "init", "causal", "endpoint")


def _causal_problems(name: str, causal: dict[str, Any], length: tuple[str, Any]) -> list[tuple[list, str]]:
    """(key path, problem) for a causal model's checkpoint and prompt: its files, its template's
    fields, and verbalisers that its tokenizer cannot tell apart (read with the tokenizers
    library from tokenizer.json: nothing is imported from transformers, nothing is unpickled)."""
    from tabprobe.models.causal import check_checkpoint, checkpoint_config, verbaliser_problems
    from tabprobe.models.lm_prompts import template_problems

    problems = []
    if isinstance(causal.get("template"), str):
        problems += [(["models", name, "causal", "template"], p) for p in template_problems(causal["template"])]
    if isinstance(causal.get("checkpoint"), str):
        try:
            check_checkpoint(causal["checkpoint"])
        except TabprobeError as err:
            return problems + [(["models", name, "causal", "checkpoint"], str(err))]
        if not problems:
            problems += [(["models", name, "causal", *key], p) for key, p in verbaliser_problems(causal)]
        # The context window of a folder's config.json, or of a GGUF file's metadata.
        problems += _length_problems(name, causal["checkpoint"], *length, read=checkpoint_config)
    return problems


def _length_problems(name: str, path, key: str, max_length: Any, read=None) -> list[tuple[list, str]]:
    """A max_length past the positions of the checkpoint (or base) at `path`, whose settings
    `read` gives (its config.json by default): the job would fail deep in the forward pass (a
    tensor size mismatch), after every job before it ran."""
    from tabprobe.models.checkpoints import context_problems, read_config

    if not isinstance(max_length, int):
        return []
    settings = (read or read_config)(path)
    return [(["models", name, *key.split(".")], p) for p in context_problems(settings, max_length)]


def _model_problems(name: str, model: dict[str, Any], length: tuple[str, Any]) -> list[tuple[list, str]]:
    """(key path, problem) for a user's checkpoint, or the base of a trained or initialised
    model, that the jobs would refuse: found now, from its files alone (nothing is unpickled or
    imported), rather than after the upstream jobs ran. `length`: (key, tokens) of the inputs
    the model will read, the key that set them."""
    from tabprobe.models.checkpoints import checkpoint_labels, label_order, require_base, resolve_base

    if isinstance(model.get("causal"), dict):
        return _causal_problems(name, model["causal"], length)
    problems = []
    for key in ("train", "init"):
        if isinstance(model.get(key), dict) and isinstance(model[key].get("base"), str):
            try:
                base = require_base(model[key]["base"])
            except TabprobeError as err:
                problems.append((["models", name, key, "base"], str(err)))
                continue
            # Training reads its own max_length where it has one, the model's otherwise.
            own = model[key].get("max_length") if key == "train" else None
            problems += _length_problems(name, base, *((f"{key}.max_length", own) if own else length))
    if isinstance(model.get("checkpoint"), str):
        labels = model.get("labels") if isinstance(model.get("labels"), dict) else None
        try:
            id2label = checkpoint_labels(model["checkpoint"])
        except TabprobeError as err:
            problems.append((["models", name, "checkpoint"], str(err)))
        else:
            try:
                label_order(id2label, labels, model["checkpoint"])
            except TabprobeError as err:
                problems.append((["models", name, "labels" if labels else "checkpoint"], str(err)))
            problems += _length_problems(name, resolve_base(model["checkpoint"]), *length)
    return problems


def semantic_problems(config: dict[str, Any]) -> list[str]:
    """Problems the schema cannot see: probes and models that do not fit together, files that do not exist."""
    problems = _own_dataset_problems(config)
    externals = external_probes(config)
    problems += _external_probe_problems(config, externals)
    for name, settings in (config.get("probes") or {}).items() if isinstance(config.get("probes"), dict) else []:
        if name not in externals and isinstance(settings, dict) and "label_change" in settings:
            problems.append(
                f"config key probes.{name}.label_change: only an external probe set takes label_change "
                "(a registered probe declares its own)"
            )
        if isinstance(settings, dict) and settings.get("curation"):
            problems += _curation_problems(name, externals, curation_files(config, name), config)
        problems += _option_problems(name, externals, config)
    problems += _relevance_problems(config)
    for name in (config.get("probes") or {}) if isinstance(config.get("probes"), dict) else []:
        if name not in REGISTRY and name not in externals and re.fullmatch(PROBE_NAME, str(name)):
            problems.append(
                f"config key probes.{name}: no such probe.{did_you_mean(name, REGISTRY)} Registered: {', '.join(sorted(REGISTRY))}"
            )
    probes = config.get("probes") if isinstance(config.get("probes"), dict) else {}
    judged_by_transitions = [
        n for n in probes if n in REGISTRY and get_probe(n).judged_by in ("transitions", "evidence")
    ]
    for baseline in dict.fromkeys(baseline_probe(n) for n in judged_by_transitions):
        comparing = [n for n in judged_by_transitions if baseline_probe(n) == baseline]
        if baseline not in probes:
            problems.append(
                f"config key probes: {', '.join(comparing)} compare predictions with those on the "
                f"unperturbed examples; add `{baseline}: {{}}` to probes"
            )
    problems += _transition_probe_coverage(config, probes, judged_by_transitions)
    models = config.get("models") if isinstance(config.get("models"), dict) else {}
    problems += _problems_of_models(config, models)
    problems += _inoculation_problems(config, probes, models)
    problems += _variance_problems(config, models)
    problems += dataset_problems(config, probes, models)
    problems += table_premise_problems(config, models)
    problems += base_model_problems(models)
    problems += endpoint_problems(config, models)
    return problems


def _own_dataset_problems(config: Mapping[str, Any]) -> list[str]:
    """The config's own datasets (`datasets:`) are registered before anything looks them up (their
    probes, their splits), and each must import and declare a Dataset of its name."""
    problems = []
    block = config.get("datasets") if isinstance(config.get("datasets"), dict) else {}
    for name, entry in block.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("package"), str):
            continue  # the schema says what is missing
        try:
            register(name, entry["package"], entry.get("path"))
            get_dataset(name)
        except ValueError as error:
            forget(name)
            problems.append(f"config key datasets.{name}.package: {error}")
    return problems


def _external_probe_problems(config: dict[str, Any], externals: Mapping[str, str | None]) -> list[str]:
    """An external probe set needs a name of its own, the one split its examples come from, and
    a folder that exists."""
    problems = []
    for name in externals:
        settings = config["probes"][name]
        if name in REGISTRY:
            problems.append(
                f"config key probes.{name}.external: {name} is a registered probe; give the external set another name"
            )
        if not isinstance(settings.get("splits"), list) or len(settings["splits"]) != 1:
            problems.append(
                f"config key probes.{name}.splits: an external probe set is paired with the one split its "
                "examples come from; give it, e.g. `splits: [alpha1]`"
            )
        if not Path(settings["external"]).is_dir():
            problems.append(f"config key probes.{name}.external: {settings['external']} is not a folder")
    return problems


def _relevance_problems(config: dict[str, Any]) -> list[str]:
    """Relevance read from annotations needs the annotations' file, and that file must exist."""
    relevance = config.get("relevance") if isinstance(config.get("relevance"), dict) else {}
    if relevance.get("source") == "annotations" and not relevance.get("annotations"):
        return ["config key relevance.annotations: relevance.source is `annotations`; give the TSV's path"]
    if relevance.get("annotations") and not Path(relevance["annotations"]).is_file():
        return [f"config key relevance.annotations: {relevance['annotations']} is not a file"]
    return []


def _problems_of_models(config: dict[str, Any], models: Mapping[str, Any]) -> list[str]:
    """Each model is of exactly one kind, and its checkpoint or base takes what the jobs will
    give it (_model_problems)."""
    problems = []
    for name, model in models.items():
        if isinstance(model, dict) and sum(k in model for k in MODEL_KINDS) != 1:
            problems.append(
                f"config key models.{name}: give exactly one of `checkpoint` (a classifier directory you have), "
                "`train` (fine-tuned by the workflow), `init` (untrained head, a plumbing baseline), `causal` "
                "(a causal language model, prompted) or `endpoint` (a served model, prompted through its API)"
            )
        elif isinstance(model, dict):
            # A model that leaves max_length out reads the schema's default (512), which a small
            # checkpoint may not take.
            lengths = {"max_length": model_default("max_length"), **model}
            max_length = model_max_length(config, lengths)
            length_key = "max_length" if max_length == lengths["max_length"] else "full_max_length"
            problems += [
                f"config key {'.'.join(path)}: {problem}"
                for path, problem in _model_problems(name, model, (length_key, max_length))
            ]
    return problems


def _inoculation_problems(config: dict[str, Any], probes: dict, models: dict) -> list[str]:
    """An inoculation needs a model that reads the table, and the challenge probes on train (to
    fine-tune on) and on alpha1 (to test on), beside `original` there."""
    if not isinstance(config.get("inoculation"), dict) or not config["inoculation"].get("model"):
        return []
    plan = inoculation_plan(config)
    name, problems = plan["model"], []
    if name not in models:
        return [f"config key inoculation.model: no model {name!r} in config.{did_you_mean(name, models)}"]
    if isinstance(models[name], dict) and "causal" in models[name]:
        problems.append(
            f"config key inoculation.model: {name} is a prompted causal LM; inoculation fine-tunes a "
            "classifier (`train` or `checkpoint`)"
        )
    if isinstance(models[name], dict) and models[name].get("premise") == "hypothesis_only":
        problems.append(
            f"config key inoculation.model: {name} reads no table (premise: hypothesis_only); inoculate a "
            "premise + hypothesis model, as the paper does"
        )
    from tabprobe.probes import pooled_members

    known = [p for p in probes if p in REGISTRY]
    for experiment in plan["experiments"]:
        members = [p for column in pooled_members(INOCULATION_TABLES[experiment], known).values() for p in column]
        # Its train examples are generated for it whatever the probes' splits; it tests on alpha1's.
        if not any("alpha1" in probe_splits(config, p) for p in members):
            problems.append(
                f"config key inoculation.experiments: {experiment} fine-tunes on its probes' examples "
                "from train and tests on those from alpha1; run at least one of them on alpha1 "
                f"(e.g. `splits: [alpha1]` for {', '.join(members) or 'one of its probes'})"
            )
        if "original" in probes and "alpha1" not in probe_splits(config, "original"):
            problems.append(
                "config key probes.original.splits: inoculation compares accuracy on alpha1 before and after; "
                "run original on alpha1"
            )
    # A Defense fine-tunes on its probe's train and dev examples (generated for it) and tests on
    # its alpha1 examples, which the probe must therefore make: the report's Attack row.
    for probe in plan.get("defense") or []:
        if probe not in probes:
            problems.append(
                f"config key inoculation.defense: {probe} is not among the probes; add `{probe}: {{splits: [alpha1]}}` "
                "to `probes` (the Defense tests on its alpha1 examples, beside the model before: the Attack)"
            )
        elif "alpha1" not in probe_splits(config, probe):
            problems.append(
                f"config key inoculation.defense: {probe} does not run on alpha1, where the Defense is tested; "
                f"add alpha1 to probes.{probe}.splits"
            )
    return list(dict.fromkeys(problems))


def _variance_problems(config: dict[str, Any], models: dict) -> list[str]:
    plan = variance_plan(config) if isinstance(config.get("controlled_variance"), dict) else None
    if not plan:
        return []
    problems = []
    if plan["model"] not in models:
        problems.append(
            f"config key controlled_variance.model: no model {plan['model']!r} in config.{did_you_mean(plan['model'], models)}"
        )
    elif isinstance(models[plan["model"]], dict) and "causal" in models[plan["model"]]:
        problems.append(
            f"config key controlled_variance.model: {plan['model']} is a prompted causal LM; the experiment "
            "fine-tunes a classifier (`train` or `checkpoint`)"
        )
    elif isinstance(models[plan["model"]], dict) and models[plan["model"]].get("premise") == "hypothesis_only":
        problems.append(
            f"config key controlled_variance.model: {plan['model']} reads no table (premise: hypothesis_only); "
            "the numbers it must compare are in the table"
        )
    for key, bounds in [("train_range", plan["train_range"])] + [
        (f"test_ranges.{i}", b) for i, b in enumerate(plan["test_ranges"])
    ]:
        if isinstance(bounds, list) and len(bounds) == 2 and not bounds[0] < bounds[1]:
            problems.append(f"config key controlled_variance.{key}: {bounds} is not [low, high] with low < high")
    return problems
