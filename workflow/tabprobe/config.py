"""Config checks with messages that name the key, before any job runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import jsonschema
import yaml

from .errors import TabprobeError, closest, did_you_mean
from .infotabs import SPLITS, split_tsv
from .probes import REGISTRY, get_probe


class ConfigError(TabprobeError):
    pass


# Probe and model names become folder names under results/ and resources/models/, and the
# workflow's wildcards: no path characters, no leading dot. The schema's propertyNames and the
# rules' wildcard constraints use these same patterns (tests/test_bad_input.py checks both).
PROBE_NAME = r"[A-Za-z0-9][A-Za-z0-9_]*"
MODEL_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
_NAME_RULES = {
    "probes": "a probe name may hold only letters, digits and _, starting with a letter or digit",
    "models": "a model name may hold only letters, digits, _, . and -, starting with a letter or digit",
}


def type_command_line_values(config: dict[str, Any], overrides: Mapping[str, Any] | None) -> None:
    """Read the strings Snakemake hands over from `--config` as YAML reads them in config.yaml.

    Snakemake types `--config` values as int, float, `True`/`False`, else strings (nested values
    all strings), so `full=true`, `infotabs_verify=false` and `max_examples=null` (the documented
    spellings) would arrive as "true", "false" and "null". Each such leaf of `config` that the
    command line set is replaced, in place, by its YAML value where that is a boolean, null or
    a number; any other string stays a string."""
    def typed(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: typed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [typed(item) for item in value]
        if isinstance(value, str):
            try:
                loaded = yaml.safe_load(value)
            except yaml.YAMLError:
                return value
            if loaded is None or isinstance(loaded, (bool, int, float)):
                return loaded
        return value

    def apply(target: dict, given: Mapping[str, Any]) -> None:
        for key, value in given.items():
            if key not in target:
                continue
            if isinstance(value, dict) and isinstance(target[key], dict):
                apply(target[key], value)
            else:
                target[key] = typed(target[key])

    apply(config, overrides or {})


_TYPE_HINT = ("; on the command line write it as in config.yaml: `--config key=true` or `false`, "
              "`null`, a number, or a quoted string")


def _key_path(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "(top level)"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        hints = []
        for key in unknown:
            match = closest(key, allowed)
            hints.append(f"{key!r}" + (f" (did you mean {match!r}?)" if match else ""))
        return f"unknown key(s) {', '.join(hints)}; allowed keys here: {', '.join(allowed)}"
    if error.validator == "pattern" and "propertyNames" in error.schema_path:
        # The names are folder names (results/<kind>/<name>/...); say so rather than show a regex.
        rule = _NAME_RULES.get(str(error.absolute_path[-1]) if error.absolute_path else "", "")
        return f"{error.instance!r} is not a valid name: {rule or error.message}; rename it"
    if error.validator == "enum" and isinstance(error.instance, str):
        choices = [c for c in error.validator_value if isinstance(c, str)]
        hint = did_you_mean(error.instance, choices)
        return error.message + ("." + hint if hint else "")
    if error.validator == "type" and isinstance(error.instance, str):
        return error.message + _TYPE_HINT
    return error.message


def _error_path(error: jsonschema.ValidationError) -> list:
    """Where in the config the bad thing is: for an unknown or badly named key, the key itself."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return path + unknown[:1]
    if error.validator == "pattern" and "propertyNames" in error.schema_path:
        return path + [error.instance]
    return path


def _walk(node, path: Sequence) -> tuple[int, int | None]:
    """(how many parts of `path` were found, the line of the last one) in a composed YAML file.
    A part may be a dotted string ("models.minilm-para.train.base"): at each level the longest key
    that starts it is taken, so names holding a dot (roberta.large) are found too."""
    parts = list(path)
    found, line = 0, None
    while parts and node is not None:
        part = parts[0]
        if isinstance(node, yaml.MappingNode):
            text = str(part)
            matches = [(k, v) for k, v in node.value if text == k.value or text.startswith(f"{k.value}.")]
            if not matches:
                break
            key, node = max(matches, key=lambda kv: len(kv[0].value))
            rest = text[len(key.value) + 1:]
            parts = ([rest] if rest else []) + parts[1:]
            line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and str(part).split(".")[0].isdigit():
            index, _, rest = str(part).partition(".")
            if int(index) >= len(node.value):
                break
            node = node.value[int(index)]
            parts = ([rest] if rest else []) + parts[1:]
            line = node.start_mark.line + 1
        else:
            break
        found += 1
    return (found if not parts else -found), line


def _leaf_keys(mapping: dict, prefix: str = ""):
    """Dotted names of the values a (nested) mapping sets: {"a": {"b": 1}} -> "a.b"."""
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            yield from _leaf_keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def locate(path: Sequence, sources: Sequence[str | Path], overrides: dict | None = None) -> str | None:
    """"file:line" of the key at `path` in the config file that sets it (a later file overrides
    an earlier one, as Snakemake merges them); "--config" where the command line's `--config`
    (`overrides`, which Snakemake merges last) sets it or a key enclosing it; failing both, the
    file:line of the nearest enclosing key that a file sets; None when nothing sets any of it."""
    dotted = ".".join(str(part) for part in path)
    if any(dotted == key or dotted.startswith(f"{key}.") for key in _leaf_keys(overrides or {})):
        return "--config"
    nearest = None
    for source in reversed(list(sources)):
        try:
            node = yaml.compose(Path(source).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        found, line = _walk(node, path)
        if line is None:
            continue
        if found > 0:
            return f"{source}:{line}"
        if nearest is None or -found > nearest[0]:
            nearest = (-found, f"{source}:{line}")
    return nearest[1] if nearest else None


def _located(problem: str, sources: Sequence[str | Path], overrides: dict | None = None) -> str:
    """A problem "config key a.b.c: ..." prefixed with the file:line (or --config) that sets a.b.c."""
    match = re.match(r"config key ([^:\s]+): ", problem)
    where = locate([match.group(1)], sources, overrides) if match else None
    return f"{where}: {problem}" if where else problem


# read by the workflow, not passed to the probe
WORKFLOW_PROBE_OPTIONS = ("splits", "max_examples", "external", "label_change", "curation")


def external_probes(config: dict[str, Any]) -> dict[str, str | None]:
    """The external probe sets of config (`probes: {name: {external: folder}}`): name -> label_change."""
    probes = config.get("probes") if isinstance(config.get("probes"), dict) else {}
    return {name: (settings or {}).get("label_change") for name, settings in probes.items()
            if isinstance(settings, dict) and "external" in settings}


def probe_splits(config: dict[str, Any], probe: str) -> list[str]:
    settings = config["probes"].get(probe) or {}
    return list(settings.get("splits") or config["splits"])


def probe_limit(config: dict[str, Any], probe: str) -> int | None:
    """The probe's cap per split: its own `max_examples`, else the top-level one; none when full."""
    if config.get("full"):
        return None
    settings = config["probes"].get(probe) or {}
    return settings["max_examples"] if "max_examples" in settings else config.get("max_examples")


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


# Paper section 7's grid, used when `full: true` (the CPU default keeps a reduced one).
FULL_INOCULATION = {"learning_rates": [1e-4, 5e-5, 1e-5], "max_epochs": 30, "patience": 3, "dev_examples": None}
INOCULATION_DEFAULTS = {"experiments": ["hypothesis", "counterfactual"], "sizes": [100, 200, 300],
                        "learning_rates": [5e-5], "max_epochs": 3, "patience": 1, "batch_size": 16, "dev_examples": 300}
# The challenge family of each experiment and the paper table pooling its probes.
INOCULATION_TABLES = {"hypothesis": "table4", "counterfactual": "table7"}


def _plan(config: Mapping[str, Any], key: str, defaults: Mapping[str, Any], full: Mapping[str, Any]) -> dict[str, Any] | None:
    """The settings in force of an optional config block: its defaults, the user's keys, then
    `full` when `full: true`; None when the block names no model."""
    settings = config.get(key) or {}
    if not settings.get("model"):
        return None
    return {**defaults, **settings, **(full if config.get("full") else {})}


def inoculation_plan(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The inoculation settings in force (`full: true` gives the paper's grid), or None when
    config asks for none."""
    plan = _plan(config, "inoculation", INOCULATION_DEFAULTS, FULL_INOCULATION)
    if plan:
        plan["sizes"] = sorted(plan["sizes"])
    return plan


VARIANCE_DEFAULTS = {"train_range": [30, 49], "test_ranges": [[30, 49], [60, 79], [200, 299]], "resamples": 3,
                     "train_examples": 300, "test_examples": 200, "dev_examples": 100, "learning_rate": 5e-5,
                     "max_epochs": 3, "patience": 1, "batch_size": 16}
FULL_VARIANCE = {"train_examples": 2000, "test_examples": 1000, "dev_examples": 300, "max_epochs": 10, "patience": 3}


def variance_plan(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The controlled-variance settings in force (`full: true` gives more examples and epochs),
    or None when config asks for none."""
    return _plan(config, "controlled_variance", VARIANCE_DEFAULTS, FULL_VARIANCE)


def inoculated_name(model: str, experiment: str, size: int) -> str:
    """The name the inoculated model's predictions are filed under: results/predictions/<name>/."""
    return f"{model}.ino-{experiment}-{size}"


def original_covers(config: dict[str, Any], probe: str, split: str) -> bool:
    """Whether `original` has predictions for every gold example `probe` sees on `split`: it runs
    there with a cap at least as large (capped subsets are nested, see perturb.select_examples).
    An external probe set pairs with whichever gold examples `original` predicted, so for it
    `original` running on the split is enough."""
    if "original" not in config["probes"] or split not in probe_splits(config, "original"):
        return False
    return probe in external_probes(config) or _cap_covered(probe_limit(config, probe), probe_limit(config, "original"))


def _cap_covered(cap: int | None, original_cap: int | None) -> bool:
    """Whether a probe capped at `cap` sees only examples that `original` (capped at
    `original_cap`) predicted; None is no cap."""
    return original_cap is None or (cap is not None and cap <= original_cap)


def _transition_probe_coverage(config, probes, transition_probes) -> list[str]:
    """A transition probe compares with `original` on the same examples: original must run on
    every split it runs on, with a cap at least as large (subsets are nested, see perturb)."""
    if "original" not in probes or not isinstance(config.get("splits"), list):
        return []
    problems = []
    original_splits = set(probe_splits(config, "original"))
    original_cap = probe_limit(config, "original")
    for name in transition_probes:
        missing = [s for s in probe_splits(config, name) if s not in original_splits]
        if missing:
            problems.append(f"config key probes.{name}.splits: `original` does not run on {', '.join(missing)}; "
                            "add them to probes.original.splits")
        cap = probe_limit(config, name)
        if not _cap_covered(cap, original_cap):
            problems.append(f"config key probes.{name}.max_examples: {cap or 'all'} examples need original predictions, "
                            f"but `original` is capped at {original_cap}")
    return problems


def _curation_problems(name: str, externals, files: list[str]) -> list[str]:
    """A curation file belongs to a generated probe judged by expected labels, and must exist."""
    if name in externals:
        return [f"config key probes.{name}.curation: an external probe set is read as it is; curate its TSV itself"]
    if name in REGISTRY and get_probe(name).judged_by != "expected":
        return [f"config key probes.{name}.curation: {name} is judged by {get_probe(name).judged_by}, not by expected "
                "labels, so there is nothing to curate"]
    return [f"config key probes.{name}.curation: {path} is not a file (write it with `tabprobe curate {name}`)"
            for path in files if not Path(path).is_file()]


def _model_problems(name: str, model: dict[str, Any]) -> list[tuple[list, str]]:
    """(key path, problem) for a user's checkpoint, or the base of a trained or initialised
    model, that the jobs would refuse: found now, from its files alone (nothing is unpickled or
    imported), rather than after the upstream jobs ran."""
    from .models import checkpoint_labels, label_order, require_base

    problems = []
    for key in ("train", "init"):
        if isinstance(model.get(key), dict) and isinstance(model[key].get("base"), str):
            try:
                require_base(model[key]["base"])
            except TabprobeError as err:
                problems.append((["models", name, key, "base"], str(err)))
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
    return problems


def check(config: dict[str, Any], schema_path: str | Path, sources: Sequence[str | Path] = (),
          schema_shown: str | None = None, overrides: dict | None = None) -> None:
    """Raise ConfigError listing every problem, each with its dotted key path and, where a file of
    `sources` (the config files, in the order Snakemake merged them) sets that key, file:line."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    located = []
    for e in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        where = locate(_error_path(e), sources, overrides)
        located.append(f"{where + ': ' if where else ''}config key {_key_path(e)}: {_describe(e)}")
    if located:
        # The checks below read the config as the schema types it: on a config with type errors
        # they may fail in ways that hide the real message, so what they find is only added.
        try:
            problems = _semantic_problems(config)
        except (TypeError, AttributeError, KeyError, ValueError):
            problems = []
    else:
        problems = _semantic_problems(config)
    problems = located + [_located(p, sources, overrides) for p in problems]
    if problems:
        read = [*map(str, sources), *(["--config"] if overrides else [])]
        read_from = f" (read from {', then '.join(read)})" if read else ""
        raise ConfigError(f"the config is not valid{read_from}:\n  " + "\n  ".join(problems)
                          + f"\n(schema: {schema_shown or schema_path})")


def _semantic_problems(config: dict[str, Any]) -> list[str]:
    """Problems the schema cannot see: probes and models that do not fit together, files that do not exist."""
    problems = []
    externals = external_probes(config)
    for name in externals:
        settings = config["probes"][name]
        if name in REGISTRY:
            problems.append(f"config key probes.{name}.external: {name} is a registered probe; give the external set another name")
        if not isinstance(settings.get("splits"), list) or len(settings["splits"]) != 1:
            problems.append(f"config key probes.{name}.splits: an external probe set is paired with the one split its "
                            "examples come from; give it, e.g. `splits: [alpha1]`")
        if not Path(settings["external"]).is_dir():
            problems.append(f"config key probes.{name}.external: {settings['external']} is not a folder")
    for name, settings in (config.get("probes") or {}).items() if isinstance(config.get("probes"), dict) else []:
        if name not in externals and isinstance(settings, dict) and "label_change" in settings:
            problems.append(f"config key probes.{name}.label_change: only an external probe set takes label_change "
                            "(a registered probe declares its own)")
        if isinstance(settings, dict) and settings.get("curation"):
            problems += _curation_problems(name, externals, curation_files(config, name))
    relevance = config.get("relevance") if isinstance(config.get("relevance"), dict) else {}
    if relevance.get("source") == "annotations" and not relevance.get("annotations"):
        problems.append("config key relevance.annotations: relevance.source is `annotations`; give the TSV's path")
    elif relevance.get("annotations") and not Path(relevance["annotations"]).is_file():
        problems.append(f"config key relevance.annotations: {relevance['annotations']} is not a file")
    for name in (config.get("probes") or {}) if isinstance(config.get("probes"), dict) else []:
        if name not in REGISTRY and name not in externals and re.fullmatch(PROBE_NAME, str(name)):
            problems.append(
                f"config key probes.{name}: no such probe.{did_you_mean(name, REGISTRY)} Registered: {', '.join(sorted(REGISTRY))}"
            )
    probes = config.get("probes") if isinstance(config.get("probes"), dict) else {}
    judged_by_transitions = [n for n in probes if n in REGISTRY and get_probe(n).judged_by in ("transitions", "evidence")]
    if judged_by_transitions and "original" not in probes:
        problems.append(
            f"config key probes: {', '.join(judged_by_transitions)} compare predictions with those on the "
            "unperturbed examples; add `original: {}` to probes"
        )
    problems += _transition_probe_coverage(config, probes, judged_by_transitions)
    models = config.get("models") if isinstance(config.get("models"), dict) else {}
    for name, model in models.items():
        if isinstance(model, dict) and sum(k in model for k in ("checkpoint", "train", "init")) != 1:
            problems.append(
                f"config key models.{name}: give exactly one of `checkpoint` (a directory you have), "
                "`train` (fine-tuned by the workflow) or `init` (untrained head, a plumbing baseline)"
            )
        elif isinstance(model, dict):
            problems += [f"config key {'.'.join(path)}: {problem}" for path, problem in _model_problems(name, model)]
    problems += _inoculation_problems(config, probes, models)
    problems += _variance_problems(config, models)
    root = config.get("infotabs_dir")
    if isinstance(root, str) and not (Path(root) / "data" / "maindata").is_dir():
        problems.append(f"config key infotabs_dir: {root} has no data/maindata/ folder; give the folder that holds "
                        "data/maindata/ and data/tables/json/ of an InfoTabS copy, or null to download it")
    elif isinstance(root, str):
        for split in _splits_read(config, probes, models):
            tsv = split_tsv(root, split)
            if not tsv.is_file():
                problems.append(f"config key infotabs_dir: {root} lacks {tsv.relative_to(root)}, the {split} split this "
                                f"config reads; restore the file (an InfoTabS copy has all five), or leave {split} out "
                                "of `splits:` and the probes' splits")
    return problems


def _splits_read(config: Mapping[str, Any], probes: Mapping, models: Mapping) -> list[str]:
    """The splits of InfoTabS the workflow will read with this config, in SPLITS order."""
    wanted = set(config.get("splits") or [])
    for name in probes:
        wanted.update(probe_splits(config, name))
    if any(isinstance(m, dict) and "train" in m for m in models.values()) or inoculation_plan(config) \
            or variance_plan(config):
        wanted.update(("train", "dev"))  # fine-tuning reads train, and dev to pick its checkpoint
    return [split for split in SPLITS if split in wanted]


def _inoculation_problems(config: dict[str, Any], probes: dict, models: dict) -> list[str]:
    """An inoculation needs a model that reads the table, and the challenge probes on train (to
    fine-tune on) and on alpha1 (to test on), beside `original` there."""
    if not isinstance(config.get("inoculation"), dict) or not config["inoculation"].get("model"):
        return []
    plan = inoculation_plan(config)
    name, problems = plan["model"], []
    if name not in models:
        return [f"config key inoculation.model: no model {name!r} in config.{did_you_mean(name, models)}"]
    if isinstance(models[name], dict) and models[name].get("premise") == "hypothesis_only":
        problems.append(f"config key inoculation.model: {name} reads no table (premise: hypothesis_only); inoculate a "
                        "premise + hypothesis model, as the paper does")
    from .probes import pooled_members

    known = [p for p in probes if p in REGISTRY]
    for experiment in plan["experiments"]:
        members = [p for column in pooled_members(INOCULATION_TABLES[experiment], known).values() for p in column]
        for split in ("train", "alpha1"):
            if not any(split in probe_splits(config, p) for p in members):
                problems.append(f"config key inoculation.experiments: {experiment} fine-tunes on its probes' examples "
                                f"from train and tests on those from alpha1; run at least one of them on {split} "
                                f"(e.g. `splits: [alpha1, train]` for {', '.join(members) or 'one of its probes'})")
        if "original" in probes and "alpha1" not in probe_splits(config, "original"):
            problems.append("config key probes.original.splits: inoculation compares accuracy on alpha1 before and after; "
                            "run original on alpha1")
    return problems


def _variance_problems(config: dict[str, Any], models: dict) -> list[str]:
    plan = variance_plan(config) if isinstance(config.get("controlled_variance"), dict) else None
    if not plan:
        return []
    problems = []
    if plan["model"] not in models:
        problems.append(f"config key controlled_variance.model: no model {plan['model']!r} in config.{did_you_mean(plan['model'], models)}")
    elif isinstance(models[plan["model"]], dict) and models[plan["model"]].get("premise") == "hypothesis_only":
        problems.append(f"config key controlled_variance.model: {plan['model']} reads no table (premise: hypothesis_only); "
                        "the numbers it must compare are in the table")
    for key, bounds in [("train_range", plan["train_range"])] + [(f"test_ranges.{i}", b) for i, b in enumerate(plan["test_ranges"])]:
        if isinstance(bounds, list) and len(bounds) == 2 and not bounds[0] < bounds[1]:
            problems.append(f"config key controlled_variance.{key}: {bounds} is not [low, high] with low < high")
    return problems


def require_configured(config: dict[str, Any], **names: str) -> None:
    """Raise ConfigError when a requested path names a model or probe that config does not
    list (model="...", probe="..."), with the closest configured name. The rules' model and
    probe wildcards accept any well-formed name, so that a typo in a target reaches this message
    rather than Snakemake's bare "No rule to produce"."""
    for kind, name in names.items():
        configured = list(config.get(f"{kind}s") or {})
        if name not in configured:
            hint = did_you_mean(name, configured)
            if not hint and kind == "probe" and (registered := closest(name, REGISTRY)):
                hint = f" Did you mean {registered!r}? It is a registered probe: list it under `probes:` to run it."
            raise ConfigError(
                f"no {kind} {name!r} in config.{hint} Configured {kind}s: "
                f"{', '.join(configured)}. Fix the name in the requested path, or add it under `{kind}s:` in config.yaml."
            )


def load_files(paths: Sequence[str | Path]) -> dict[str, Any]:
    """The config that Snakemake builds from these files (later ones override earlier ones,
    key by key), or ConfigError naming the file, line and column of a YAML syntax error."""
    from snakemake.utils import update_config

    merged: dict[str, Any] = {}
    for path in paths:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
            opened = err.context_mark if err.context and err.problem else None
            raise ConfigError(f"{where}: not valid YAML: {err.problem or err.context}"
                              + (f" ({err.context} opened at line {opened.line + 1}, column {opened.column + 1})" if opened else "")
                              + "; fix the syntax there (a bracket or quote left open, a tab in the indentation)") from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            raise ConfigError(f"{path}: cannot be read as YAML ({err})") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: the top level must be keys (seed:, splits:, probes:, ...), found {type(loaded).__name__}")
        update_config(merged, loaded)  # Snakemake's own merge
    return merged


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m tabprobe.config config.yaml [my.yaml ...]`: check config files as the workflow
    does, without running it. Snakemake reads --configfile files itself and says of one that is
    not valid YAML only "Config file is not valid JSON or YAML"; this names the file and line."""
    import sys

    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m tabprobe.config config.yaml [more.yaml ...] (merged in order, as Snakemake does)",
              file=sys.stderr)
        return 2
    schema = Path(__file__).resolve().parents[1] / "schemas" / "config.schema.yaml"
    try:
        check(load_files(paths), schema, sources=paths, schema_shown="workflow/schemas/config.schema.yaml")
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"{', '.join(paths)}: valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
