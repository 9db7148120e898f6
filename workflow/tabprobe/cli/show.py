"""`tabprobe show PROBE`: without --model, the probe applied in this process to the first
examples of the ingested split (so a probe being written can be looked at before it is in
config.yaml); with --model, a seeded handful of the examples that model failed, from the
workflow's outputs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from tabprobe import layout
from tabprobe.cli.configfile import read_config, seed_of
from tabprobe.cli.errors import CommandFailed, UsageError
from tabprobe.cli.terminal import render_change, styled
from tabprobe.cli.workflow import probe_inputs, probe_split, require_outputs
from tabprobe.config import external_probes, probe_options, schema_default
from tabprobe.config.settings import baseline_probe, probe_dataset
from tabprobe.data.datasets import get_dataset
from tabprobe.data.infobox import table as infobox
from tabprobe.errors import did_you_mean
from tabprobe.probes import REGISTRY, Probe, get_probe, is_external, register_external


def cmd_show(args, console) -> int:
    config, config_path = read_config(args.configfile)
    for name, label_change in external_probes(config).items():
        if name not in REGISTRY:  # a clash is the workflow's config error to report, not ours
            register_external(name, label_change)
    known = [*REGISTRY, *external_probes(config)]
    if args.probe not in known:
        raise UsageError(
            f"no probe {args.probe!r}.{did_you_mean(args.probe, known)} `tabprobe probes` lists the registered probes."
        )
    probe = get_probe(args.probe)
    split = probe_split(probe, args.split)
    if args.n < 1:
        raise UsageError(f"-n {args.n}: give how many examples to show, at least 1")
    seed = seed_of(config, config_path)
    results = Path(args.results)
    if args.model:
        return _show_failures(console, probe, split, args.n, args.model, results, seed, config)
    return _show_generated(console, probe, split, args.n, results, seed, config, config_path, args.configfile)


def _show_generated(
    console,
    probe: Probe,
    split: str,
    n: int,
    results: Path,
    seed: int,
    config: Mapping,
    config_path: Path | None,
    configfile: str | None,
) -> int:
    from tabprobe.probes import diff
    from tabprobe.probes import generation as perturb

    if is_external(probe.name):
        dataset = get_dataset(probe_dataset(probe.name))
        paths = {"examples": Path(dataset.examples(split, results)), "tables": Path(dataset.tables(split, results))}
        return _show_external(console, probe, split, n, results, paths)
    inputs = probe_inputs(probe, split, results, seed, None, config_path, configfile, config)
    options = probe_options(config, probe.name)
    tally = perturb.Tally()
    rows: list[dict] = []
    for kept in perturb.perturbations(probe.name, inputs.examples, inputs.tables, seed, options, inputs.needs, tally):
        rows += kept
        if len(rows) >= n:
            break
    skipped = tally.skipped
    perturbed = len({row["orig_uid"] for row in rows})
    looked_at = perturbed + sum(skipped.values())
    source = f"config {config_path}" if config_path else "no config.yaml here: defaults"
    console.print(
        styled(f"{probe.name} on {split}", "bold"),
        f"(seed {seed}, options {options or 'none'}; {source}) — {probe.description}",
    )
    console.print(
        f"Looked at {looked_at} of {inputs.examples.num_rows} examples in file order: {perturbed} perturbed, "
        f"{sum(skipped.values())} skipped{_reasons(skipped)}."
    )
    if tally.dropped:
        console.print(
            styled(
                f"Dropped {sum(tally.dropped.values())} perturbations that broke a promise of the probe"
                f"{_reasons(tally.dropped)}.",
                "yellow",
            )
        )
    if not rows:
        console.print(
            styled(f"{probe.name} perturbed none of the {inputs.examples.num_rows} examples of {split}.", "yellow")
        )
        return 0
    rows = rows[:n]
    originals = {record["uid"]: record for record in inputs.examples.to_pylist()}
    for change in diff.example_changes(rows, originals, inputs.tables):
        render_change(console, change, probe)
    return 0


def _show_external(console, probe: Probe, split: str, n: int, results: Path, paths: dict) -> int:
    """An external set is read, not generated: show the first examples of the workflow's copy."""
    from tabprobe import schemas
    from tabprobe.io import read_parquet
    from tabprobe.probes import diff

    probe_path = Path(layout.probe_examples(probe.name, split, results))
    require_outputs(results, [probe_path, *paths.values()])
    rows = read_parquet(probe_path, infobox.PROBE_EXAMPLES).slice(0, n).to_pylist()
    examples = read_parquet(paths["examples"], schemas.EXAMPLES)
    tables = infobox.load_tables(read_parquet(paths["tables"], infobox.TABLES))
    console.print(
        styled(f"{probe.name} on {split}", "bold"), f"— {probe.description} (the first {len(rows)} of {probe_path})"
    )
    for change in diff.example_changes(rows, {r["uid"]: r for r in examples.to_pylist()}, tables):
        render_change(console, change, probe)
    return 0


def _reasons(skipped: Counter) -> str:
    return f" ({'; '.join(f'{reason}: {count}' for reason, count in skipped.most_common())})" if skipped else ""


def _show_failures(
    console, probe: Probe, split: str, n: int, model: str, results: Path, seed: int, config: Mapping
) -> int:
    from tabprobe.report import failures

    predictions_dir = Path(layout.predictions_folder(results))
    if not predictions_dir.is_dir():
        raise CommandFailed(
            f"{predictions_dir} not found: no model has been run there yet. Run the workflow "
            "(snakemake --cores all), or give its results folder with --results"
        )
    if not (predictions_dir / model).is_dir():
        written = {p.name for p in predictions_dir.iterdir() if p.is_dir()} if predictions_dir.is_dir() else set()
        known = sorted(written | set(config.get("models") if isinstance(config.get("models"), dict) else {}))
        hint = did_you_mean(model, known) or (f" Models: {', '.join(known)}." if known else "")
        raise UsageError(
            f"no predictions of a model {model!r} in {predictions_dir}.{hint} The workflow writes them "
            "for every model under models: in config.yaml."
        )
    # The report's files and selection: the same examples as its failing-examples block. The
    # original predictions are optional (an external set, a split `original` does not run on).
    paths = {
        key: Path(path)
        for key, path in layout.showcase_inputs(
            probe.name,
            split,
            [model],
            with_original=True,
            root=results,
            original=baseline_probe(probe.name),
            folder=get_dataset(probe_dataset(probe.name)).data_folder,
        ).items()
    }
    # Transitions and evidence are judged against the prediction before the change: needed.
    optional = "original:" if probe.judged_by == "expected" else None
    require_outputs(results, [path for key, path in paths.items() if not (optional and key.startswith(optional))])
    unverified_flips = config.get("unverified_flips", schema_default("unverified_flips"))
    found, changes = failures.failing_examples(paths, probe, model, split, n, seed, unverified_flips=unverified_flips)
    console.print(
        styled(f"{model} on {probe.name} ({split})", "bold"),
        f"— failing means: {found.what}. Failing: {found.caption()}"
        + (f"; {len(found.shown)} shown, chosen with seed {seed}." if found.shown else "."),
    )
    for change in changes:
        render_change(console, change, probe, reason=change.reason)
    return 0
