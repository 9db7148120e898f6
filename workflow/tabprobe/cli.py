"""The `tabprobe` command: list the probes, show what one does, start a new one.

    tabprobe probes
    tabprobe show PROBE [--split alpha1] [-n 5] [--model MODEL] [--results results] [--configfile config.yaml]
    tabprobe new-probe NAME [--root DIR] [--kind table|hypothesis]
    tabprobe curate PROBE [--split alpha1] [--only C2E|heuristic|all] [--out curation]

`show` without --model applies the probe in this process to the workflow's ingested split
(building that with Snakemake first if it is missing), so a probe being written can be looked at
before it is in config.yaml; with --model it reads the workflow's outputs and shows a seeded
handful of the examples that model failed. `curate` writes the label flips a person must check
(tabprobe.curation) to a review page and a TSV. Changes are marked with symbols as well as colour, so
the output reads the same in a pipe: [-removed-] and {+added+} text in the hypothesis, and in the
table − deleted, + inserted, ~ changed (old → new) and ↕ moved rows.
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path
from string import Template
from typing import Mapping, Sequence

from . import LABEL_NAMES
from .config import PROBE_NAME, external_probes, probe_options
from .errors import TabprobeError, did_you_mean
from .probes import REGISTRY, Probe, get_probe, is_external, register_external

DEFAULT_SEED = 2022  # config.yaml's seed, used when there is no config file to read it from
TEMPLATES = Path(__file__).resolve().parent / "templates"
KINDS = {"table": "probe_table.py.tmpl", "hypothesis": "probe_hypothesis.py.tmpl"}
TEST_TEMPLATES = {"table": "test_probe_table.py.tmpl", "hypothesis": "test_probe_hypothesis.py.tmpl"}
# Wide enough that tables piped to a file or captured by a test are never cut; rich tables only
# take the width their content needs, so this is a limit, not a padding.
PIPE_WIDTH = 400


class UsageError(TabprobeError):
    """The command was given something it cannot use (exit code 2)."""


class CommandFailed(TabprobeError):
    """The command could not do its work (exit code 1)."""


# ---------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse has printed the usage error (code 2) or the help (0)
        return int(stop.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args, _console())
    except UsageError as error:
        _error(args.command, error)
        return 2
    except TabprobeError as error:  # CommandFailed, and the library's unreadable-file and setup errors
        _error(args.command, error)
        return 1
    except KeyboardInterrupt:
        return 130


def _error(command: str, error: Exception) -> None:
    print(f"tabprobe {command}: error: {error}", file=sys.stderr)


def _console():
    from rich.console import Console

    terminal = sys.stdout.isatty()
    return Console(file=sys.stdout, width=None if terminal else PIPE_WIDTH, highlight=False,
                   emoji=False, markup=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabprobe",
        description="Probes of tabular NLI models: list them, show what they do, start a new one. "
                    "The workflow itself runs with `snakemake --cores all` (README.md).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    probes = commands.add_parser("probes", help="list the registered probes",
                                 description="The registered probes: how each is judged, its family, paper "
                                             "section and what it does.")
    probes.set_defaults(run=cmd_probes)

    show = commands.add_parser(
        "show", help="show examples of a probe, or a model's failures on it",
        description="Without --model: apply PROBE to the first examples of the ingested split (results/data/"
                    "SPLIT.parquet, built with snakemake if missing) and show each change. With --model: show a "
                    "seeded handful of the probe examples that MODEL failed, from the workflow's outputs.")
    show.add_argument("probe", metavar="PROBE", help="a registered probe (see `tabprobe probes`) or an external set")
    show.add_argument("--split", default="alpha1", help="split to take examples from (default: alpha1)")
    show.add_argument("-n", type=int, default=5, help="how many examples to show (default: 5)")
    show.add_argument("--model", help="show the examples this model (a name under models: in config) failed")
    show.add_argument("--results", default="results", help="the workflow's results folder (default: ./results)")
    show.add_argument("--configfile", help="config to read the seed and probe options from (default: ./config.yaml)")
    show.set_defaults(run=cmd_show)

    new = commands.add_parser(
        "new-probe", help="start a new probe: module, registry line and test",
        description="Write workflow/tabprobe/probes/NAME.py (a small working probe to edit), add its line to "
                    "REGISTRY in workflow/tabprobe/probes/__init__.py and write tests/test_probe_NAME.py.")
    new.add_argument("name", metavar="NAME", help="the probe's name: letters, digits and underscores")
    new.add_argument("--root", help="the repository root (default: the folder above the current one that holds "
                                    "Snakefile and workflow/tabprobe)")
    new.add_argument("--kind", choices=sorted(KINDS), default="table",
                     help="table: edits the table, judged by a transition rule; hypothesis: edits the hypothesis "
                          "with its spaCy parse, judged by an expected label (default: table)")
    new.set_defaults(run=cmd_new_probe)

    curate = commands.add_parser(
        "curate", help="write the label flips a person must check to a review page and TSV",
        description="Apply PROBE to the ingested split as the workflow does (config's seed, options and cap) and "
                    "write the examples whose label a person must confirm (CONTRADICT -> ENTAIL flips, heuristic "
                    "flips; paper section 4) to OUT/PROBE.SPLIT.curation.html (a page with keys to accept, reject or "
                    "relabel, saving the TSV) and OUT/PROBE.SPLIT.curation.tsv (the same for a spreadsheet). Earlier "
                    "decisions, from the probe's curation files in config and from that TSV, are filled in. Name the "
                    "saved TSV under probes.PROBE.curation in config.yaml; the workflow applies it.")
    curate.add_argument("probe", metavar="PROBE", help="a registered probe judged by expected labels")
    curate.add_argument("--split", default="alpha1", help="split to review (default: alpha1)")
    curate.add_argument("--only", choices=["C2E", "heuristic", "all"], default="all",
                        help="C2E: CONTRADICT -> ENTAIL flips; heuristic: flips made by a heuristic; all: both "
                             "(default)")
    curate.add_argument("--out", default="curation", help="folder for the page and the TSV (default: ./curation)")
    curate.add_argument("--results", default="results", help="the workflow's results folder (default: ./results)")
    curate.add_argument("--configfile", help="config to read the seed, probe options and caps from "
                                             "(default: ./config.yaml)")
    curate.set_defaults(run=cmd_curate)

    compare = commands.add_parser(
        "compare", help="two models side by side on the scorecard, with paired differences",
        description="Compare two models of one run (`tabprobe compare MODEL_A MODEL_B`, in --results) or the "
                    "models of two runs (`tabprobe compare RUN_A RUN_B`: each a workflow folder or its results/ "
                    "folder; every model both runs scored, or --model). Shows each side's scorecard numbers and "
                    "verdict, and left minus right, paired on the examples both sides share.")
    compare.add_argument("left", metavar="A", help="a model name, or a run's folder")
    compare.add_argument("right", metavar="B", help="a model name, or a run's folder")
    compare.add_argument("--results", default="results",
                         help="the results folder of the run whose models are compared (default: ./results)")
    compare.add_argument("--model", help="with two runs: the model to compare (default: every model both scored)")
    compare.set_defaults(run=cmd_compare)
    return parser


# ---------------------------------------------------------------- tabprobe probes


def judged_by(probe: Probe) -> str:
    """How a probe is judged, in a few words."""
    if probe.judged_by == "transitions":
        return f"transitions: {probe.transition_rule}"
    if probe.judged_by == "evidence":
        return "evidence"
    return "expected label" + (f" ({probe.label_change})" if probe.label_change else "")


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'])", " ".join(text.split()), maxsplit=1)[0]


def cmd_probes(args, console) -> int:
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("probe", "judged by", "family", "paper section", "what it does"):
        table.add_column(column, overflow="fold")
    broken = []
    for name in REGISTRY:
        try:
            probe = get_probe(name)
        except Exception as error:  # a probe module being written may not import yet: list the rest
            broken.append(name)
            table.add_row(name, "", "", "", _text(f"cannot be loaded: {type(error).__name__}: {error}", "red"))
            continue
        table.add_row(name, judged_by(probe), probe.family or "—", probe.paper_reference or "—",
                      first_sentence(probe.description))
    console.print(table)
    console.print(f"{len(REGISTRY)} registered probes (workflow/tabprobe/probes/__init__.py). "
                  "`tabprobe show PROBE` shows what one does; `tabprobe new-probe NAME` starts a new one.")
    if broken:
        raise CommandFailed(f"{', '.join(broken)} cannot be loaded (see the table); "
                            f"`python -c \"from tabprobe.probes import get_probe; get_probe('{broken[0]}')\"` "
                            "shows the traceback")
    return 0


# ---------------------------------------------------------------- tabprobe show


def cmd_show(args, console) -> int:
    from .infotabs import SPLITS

    config, config_path = read_config(args.configfile)
    for name, label_change in external_probes(config).items():
        if name not in REGISTRY:  # a clash is the workflow's config error to report, not ours
            register_external(name, label_change)
    known = [*REGISTRY, *external_probes(config)]
    if args.probe not in known:
        raise UsageError(f"no probe {args.probe!r}.{did_you_mean(args.probe, known)} "
                         "`tabprobe probes` lists the registered probes.")
    if args.split not in SPLITS:
        raise UsageError(f"no split {args.split!r}.{did_you_mean(args.split, SPLITS)} Splits: {', '.join(SPLITS)}")
    if args.n < 1:
        raise UsageError(f"-n {args.n}: give how many examples to show, at least 1")
    seed = config.get("seed", DEFAULT_SEED)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UsageError(f"{config_path}: seed must be an integer, not {seed!r}")
    probe = get_probe(args.probe)
    results = Path(args.results)
    if args.model:
        return _show_failures(console, probe, args.split, args.n, args.model, results, seed, config)
    return _show_generated(console, probe, args.split, args.n, results, seed, config, config_path, args.configfile)


def read_config(path: str | None) -> tuple[dict, Path | None]:
    """The config file as YAML, and its path; ({}, None) when the default ./config.yaml is absent."""
    import yaml

    config_path = Path(path or "config.yaml")
    if not config_path.is_file():
        if path is not None:
            raise UsageError(f"config file {path} not found; give an existing file with --configfile, or leave "
                             "it out to read ./config.yaml (seed 2022 and no probe options where there is none)")
        return {}, None
    try:
        config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise UsageError(f"{config_path} is not valid YAML: {error}") from None
    if not isinstance(config, dict):
        raise UsageError(f"{config_path} is not a mapping of config keys (see config.yaml in the repository)")
    return config, config_path


def _show_generated(console, probe: Probe, split: str, n: int, results: Path, seed: int, config: Mapping,
                    config_path: Path | None, configfile: str | None) -> int:
    from . import diff, perturb

    if is_external(probe.name):
        paths = {"examples": results / "data" / f"{split}.parquet",
                 "tables": results / "data" / f"{split}.tables.parquet"}
        return _show_external(console, probe, split, n, results, paths)
    inputs = probe_inputs(probe, split, results, seed, None, config_path, configfile)
    options = probe_options(config, probe.name)
    tally = perturb.Tally()
    rows: list[dict] = []
    for kept in perturb.perturbations(probe.name, inputs.examples, inputs.tables, seed, options, inputs.docs,
                                      inputs.relevance, tally):
        rows += kept
        if len(rows) >= n:
            break
    skipped = tally.skipped
    perturbed = len({row["orig_uid"] for row in rows})
    looked_at = perturbed + sum(skipped.values())
    source = f"config {config_path}" if config_path else "no config.yaml here: defaults"
    console.print(_text(f"{probe.name} on {split}", "bold"),
                  f"(seed {seed}, options {options or 'none'}; {source}) — {probe.description}")
    console.print(f"Looked at {looked_at} of {inputs.examples.num_rows} examples in file order: {perturbed} perturbed, "
                  f"{sum(skipped.values())} skipped{_reasons(skipped)}.")
    if tally.dropped:
        console.print(_text(f"Dropped {sum(tally.dropped.values())} perturbations that broke a promise of the probe"
                            f"{_reasons(tally.dropped)}.", "yellow"))
    if not rows:
        console.print(_text(f"{probe.name} perturbed none of the {inputs.examples.num_rows} examples of {split}.",
                            "yellow"))
        return 0
    rows = rows[:n]
    originals = {record["uid"]: record for record in inputs.examples.to_pylist()}
    for change in diff.example_changes(rows, originals, inputs.tables):
        render_change(console, change, probe)
    return 0


def probe_inputs(probe: Probe, split: str, results: Path, seed: int, limit: int | None, config_path: Path | None,
                 configfile: str | None):
    """The ingested split (and its parse and relevance, where the probe reads them), built with
    Snakemake first where missing: what generate_probe reads."""
    from .jobs.generate_probe import read_probe_inputs

    paths = {"examples": results / "data" / f"{split}.parquet", "tables": results / "data" / f"{split}.tables.parquet"}
    if probe.needs_parse:
        paths["parses"] = results / "parses" / f"{split}.spacy"
    if probe.needs_relevance:
        paths["relevance"] = results / "relevance" / f"{split}.parquet"
    missing = [path for path in paths.values() if not path.exists()]
    if missing:
        build_with_snakemake(missing, results, config_path, explicit_config=configfile is not None)
    return read_probe_inputs(split, str(paths["examples"]), str(paths["tables"]), seed, limit,
                             str(paths["parses"]) if "parses" in paths else None,
                             str(paths["relevance"]) if "relevance" in paths else None)


def cmd_curate(args, console) -> int:
    from . import curation, perturb
    from .config import curation_files, probe_limit
    from .infotabs import SPLITS

    config, config_path = read_config(args.configfile)
    if args.probe not in REGISTRY:
        raise UsageError(f"no registered probe {args.probe!r}.{did_you_mean(args.probe, REGISTRY)} "
                         "`tabprobe probes` lists them (an external set is curated in its own TSV).")
    probe = get_probe(args.probe)
    if probe.judged_by != "expected":
        raise UsageError(f"{probe.name} is judged by {probe.judged_by}, not by expected labels: there is no label to "
                         "curate")
    if args.split not in SPLITS:
        raise UsageError(f"no split {args.split!r}.{did_you_mean(args.split, SPLITS)} Splits: {', '.join(SPLITS)}")
    seed = config.get("seed", DEFAULT_SEED)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UsageError(f"{config_path}: seed must be an integer, not {seed!r}")
    # The workflow's cap for this probe, so these are exactly the examples generate_probe writes.
    limit = probe_limit({**config, "probes": config.get("probes") or {}}, probe.name)
    inputs = probe_inputs(probe, args.split, Path(args.results), seed, limit, config_path, args.configfile)
    generated, _ = perturb.generate(probe.name, inputs.examples, inputs.tables, seed, probe_options(config, probe.name),
                                    inputs.docs, inputs.relevance, split=args.split)
    out = Path(args.out)
    stem = f"{probe.name}.{args.split}.curation"
    tsv_path, page_path = out / f"{stem}.tsv", out / f"{stem}.html"
    # Earlier decisions: the probe's curation files in config, then this TSV (the later wins).
    earlier: dict = {}
    for path in [*curation_files(config, probe.name), tsv_path]:
        if Path(path).is_file():
            earlier.update(curation.read_decisions([path]))
    items, stale = curation.review_items(generated, probe.label_change, args.only, earlier)
    originals = {record["uid"]: record for record in inputs.examples.to_pylist()}
    rows = curation.tsv_rows(items, originals)
    from .io import write_text

    curation.write_tsv(rows, tsv_path)
    write_text(curation.review_page(items, rows, inputs.tables, probe.name, args.split, tsv_path.name), page_path)
    needs = Counter(kind for item in items for kind in item.needs)
    decided = sum(1 for item in items if item.decision is not None)
    console.print(_text(f"{probe.name} on {args.split}", "bold"),
                  f"(seed {seed}, cap {limit or 'none'}): {len(items)} example{'' if len(items) == 1 else 's'} to review "
                  f"of {generated.num_rows} "
                  f"generated ({', '.join(f'{k} {v}' for k, v in sorted(needs.items())) or 'none needs review'}); "
                  f"{decided} decided earlier" + (f", {stale} earlier decisions no longer match the probe's output "
                                                  "and were left out" if stale else "") + ".")
    console.print(f"Review page: {page_path}\n  keys: a accept, r reject, e/n/c relabel, j/k next/previous, "
                  f"s save (downloads {tsv_path.name})\nSame as a TSV for a spreadsheet: {tsv_path} (fill in decision: "
                  "accept, reject or relabel with label E/N/C)")
    console.print(f"Then in config.yaml: probes: {{{probe.name}: {{curation: {tsv_path}}}}} (with its other options) "
                  "and run the workflow: only this probe's jobs run again.")
    return 0


def _show_external(console, probe: Probe, split: str, n: int, results: Path, paths: dict) -> int:
    """An external set is read, not generated: show the first examples of the workflow's copy."""
    from . import diff, infotabs, schemas
    from .io import read_parquet

    probe_path = results / "probes" / probe.name / f"{split}.parquet"
    require_outputs(results, [probe_path, *paths.values()])
    rows = read_parquet(probe_path, schemas.PROBE_EXAMPLES).slice(0, n).to_pylist()
    examples = read_parquet(paths["examples"], schemas.EXAMPLES)
    tables = infotabs.load_tables(read_parquet(paths["tables"], schemas.TABLES))
    console.print(_text(f"{probe.name} on {split}", "bold"),
                  f"— {probe.description} (the first {len(rows)} of {probe_path})")
    for change in diff.example_changes(rows, {r["uid"]: r for r in examples.to_pylist()}, tables):
        render_change(console, change, probe)
    return 0


def _reasons(skipped: Counter) -> str:
    return f" ({'; '.join(f'{reason}: {count}' for reason, count in skipped.most_common())})" if skipped else ""


def _show_failures(console, probe: Probe, split: str, n: int, model: str, results: Path, seed: int,
                   config: Mapping) -> int:
    from . import failures

    predictions_dir = results / "predictions"
    if not predictions_dir.is_dir():
        raise CommandFailed(f"{predictions_dir} not found: no model has been run there yet. Run the workflow "
                            "(snakemake --cores all), or give its results folder with --results")
    if not (predictions_dir / model).is_dir():
        written = {p.name for p in predictions_dir.iterdir() if p.is_dir()} if predictions_dir.is_dir() else set()
        known = sorted(written | set(config.get("models") if isinstance(config.get("models"), dict) else {}))
        hint = did_you_mean(model, known) or (f" Models: {', '.join(known)}." if known else "")
        raise UsageError(f"no predictions of a model {model!r} in {predictions_dir}.{hint} The workflow writes them "
                         "for every model under models: in config.yaml.")
    from .report_layout import showcase_inputs

    # The report's files and selection: the same examples as its failing-examples block. The
    # original predictions are optional (an external set, a split `original` does not run on).
    paths = {key: results / Path(path).relative_to("results") for key, path in
             showcase_inputs(probe.name, split, [model], with_original=True).items()}
    # Transitions and evidence are judged against the prediction before the change: needed.
    optional = "original:" if probe.judged_by == "expected" else None
    require_outputs(results, [path for key, path in paths.items() if not (optional and key.startswith(optional))])
    found, changes = failures.failing_examples(paths, probe, model, split, n, seed,
                                               unverified_flips=config.get("unverified_flips", "exclude"))
    console.print(_text(f"{model} on {probe.name} ({split})", "bold"),
                  f"— failing means: {found.what}. Failing: {found.caption()}"
                  + (f"; {len(found.shown)} shown, chosen with seed {seed}." if found.shown else "."))
    for change in changes:
        render_change(console, change, probe, reason=change.reason)
    return 0


def require_outputs(results: Path, paths) -> None:
    """Stop with the snakemake targets to build when any of the workflow's outputs is missing."""
    missing = [path for path in paths if not path.exists()]
    if missing:
        targets = " ".join(shlex.quote(_target(path, results)) for path in missing)
        raise CommandFailed(f"{', '.join(map(str, missing))} not found. Build with: snakemake --cores all {targets}\n"
                            "(run in the folder holding results/; the model and probe must be listed in config.yaml)")


def _target(path: Path, results: Path) -> str:
    """A results file as Snakemake names it: relative to the folder holding results/."""
    try:
        return str(Path("results") / path.resolve().relative_to(results.resolve()))
    except ValueError:
        return str(path)


def find_root(start: Path) -> Path | None:
    """The repository root: `start` or the nearest folder above it holding Snakefile and workflow/tabprobe."""
    for folder in [start.resolve(), *start.resolve().parents]:
        if is_root(folder):
            return folder
    return None


def is_root(folder: Path) -> bool:
    return (folder / "Snakefile").is_file() and (folder / "workflow" / "tabprobe" / "probes" / "__init__.py").is_file()


def build_with_snakemake(missing: list[Path], results: Path, config_path: Path | None, explicit_config: bool) -> None:
    """Run Snakemake, in the folder holding the Snakefile, to build exactly the `missing` inputs."""
    package_root = Path(__file__).resolve().parents[2]
    root = find_root(Path.cwd()) or (package_root if is_root(package_root) else None)
    if root is None:
        raise CommandFailed(f"{', '.join(map(str, missing))} not found, and no Snakefile to build them with: run "
                            "tabprobe inside the repository (the folder holding Snakefile)")
    results = results.resolve()
    if results.name != "results":
        raise UsageError(f"{', '.join(map(str, missing))} not found, and Snakemake builds into a folder named "
                         f"results/, which --results {results} is not: give the results/ folder of a workflow run")
    workdir = results.parent
    targets = [_target(path, results) for path in missing]
    command = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile")]
    if workdir != root:
        command += ["--directory", str(workdir)]
    # --configfile takes several files, so it goes before the targets.
    if config_path is not None and (explicit_config or workdir != root):
        command += ["--configfile", str(config_path.resolve())]
    command += ["--cores", "all", *targets]
    print(f"tabprobe: {', '.join(targets)} not found in {workdir}; building them with Snakemake:\n"
          f"  (cd {shlex.quote(str(root))} && {shlex.join(command)})", file=sys.stderr, flush=True)
    try:  # Snakemake's report goes to stderr, so that stdout holds only the examples shown
        log = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        log = None
    try:
        code = subprocess.call([*command], cwd=root, stdout=log)
    except OSError as error:
        raise CommandFailed(f"could not run Snakemake: {error}") from None
    if code != 0:
        raise CommandFailed(f"Snakemake failed (exit code {code}) building {', '.join(targets)}; its messages are "
                            "above. Fix what they say (often config.yaml) and run tabprobe again.")
    still = [path for path in missing if not path.exists()]
    if still:
        raise CommandFailed(f"Snakemake finished but {', '.join(map(str, still))} is still missing")


# ---------------------------------------------------------------- rendering


def _text(text: str, style: str = ""):
    from rich.text import Text

    return Text(text, style=style)


def render_change(console, change, probe: Probe, reason: str | None = None) -> None:
    """One probe example (a diff.ExampleChange): header, hypothesis and table, changes marked."""
    from rich.text import Text

    console.print()
    header = Text("── ", style="bold")
    header.append(change.uid, style="bold")
    if change.uid != change.orig_uid:
        header.append(f"  (from {change.orig_uid})", style="dim")
    console.print(header)
    console.print(Text(f"gold {LABEL_NAMES[change.gold]} · {_judgement(change, probe)}"))
    if change.original_pred is not None or change.pred is not None:
        before = LABEL_NAMES.get(change.original_pred, "?") if change.original_pred else "?"
        after = LABEL_NAMES.get(change.pred, "?") if change.pred else "?"
        console.print(Text(f"prediction {before} on the original → {after} after the change"))
    if reason:
        console.print(Text(f"✗ fails: {reason}", style="bold red"))
    console.print(hypothesis_text(change.hypothesis))
    note = change.premise_note
    if note:
        console.print(Text(f"premise: {note}", style="yellow"))
        if change.provenance.get("premise") != "none":
            console.print(Text(f"table the model sees: {change.table.new_title or '(no title)'}", style="bold"))
            console.print(plain_table(change.table))
        return
    console.print(table_title(change.table))
    console.print(diff_table(change.table))


def _judgement(change, probe: Probe) -> str:
    if change.expected is not None:
        return f"expected {LABEL_NAMES.get(change.expected, change.expected)}"
    if probe.judged_by == "transitions":
        from .transitions import RULES

        rule = RULES[probe.transition_rule]
        allowed = ", ".join(f"{b}→{'/'.join(sorted(rule.allowed[b], key=lambda a: (a != b, 'ENC'.index(a))))}"
                            for b in "ENC")
        return f"judged by transitions: {probe.transition_rule} ({allowed})"
    if probe.judged_by == "evidence":
        relevant = change.provenance.get("relevant")
        what = {True: "a row the hypothesis needs", False: "a row the hypothesis does not need"}.get(relevant, "a row")
        return f"judged as evidence: deletes {what}"
    return f"judged by {probe.judged_by}"


def hypothesis_text(segments):
    """The hypothesis with [-removed-] text red and struck through, {+added+} text green and bold."""
    from rich.text import Text

    if all(kind == "same" for kind, _ in segments):
        line = Text("hypothesis (unchanged): ", style="bold")
        line.append("".join(text for _, text in segments))
        return line
    line = Text("hypothesis: ", style="bold")
    for kind, text in segments:
        if kind == "same":
            line.append(text)
            continue
        core = text.rstrip()
        opening, closing, style = ("[-", "-]", "red strike") if kind == "old" else ("{+", "+}", "bold green")
        line.append(f"{opening}{core}{closing}", style=style)
        line.append(text[len(core):])
    return line


def _values(values: Sequence[str]) -> str:
    return ", ".join(values) if values else "(no value)"


def table_title(change):
    """The table's title line: "old → new" when the probe changed it."""
    from rich.text import Text

    title = Text("table: ", style="bold")
    if change.old_title != change.new_title:
        title.append(change.old_title, style="red strike")
        title.append(" → ")
        title.append(change.new_title, style="bold green")
    else:
        title.append(change.new_title + ("" if change.changed else " (unchanged)"))
    return title


def diff_table(change):
    """The table as the model sees it, with deleted rows where they stood: − deleted, + inserted,
    ~ changed (old values struck, → new values), ↕ moved (was row i), rows numbered 1, 2, ..."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("key", overflow="fold")
    table.add_column("values", overflow="fold")
    table.add_column("", overflow="fold")
    position = 0
    for row in change.rows:
        old = f"row {row.old_index + 1}" if row.old_index is not None else ""
        if row.status == "deleted":
            table.add_row(Text("−", style="bold red"), "", Text(row.key, style="red strike"),
                          Text(_values(row.values), style="red strike"), Text(f"deleted (was {old})", style="red"))
            continue
        position += 1
        if row.status == "inserted":
            table.add_row(Text("+", style="bold green"), str(position), Text(row.key, style="bold green"),
                          Text(_values(row.values), style="bold green"), Text("inserted", style="green"))
        elif row.status == "changed":
            values = Text(_values(row.old_values), style="red strike")
            values.append(" → ")
            values.append(_values(row.values), style="bold green")
            moved = "" if row.old_index == position - 1 else f", was {old}"
            table.add_row(Text("~", style="bold yellow"), str(position), row.key, values,
                          Text(f"changed{moved}", style="yellow"))
        elif row.status == "moved":
            table.add_row(Text("↕", style="bold magenta"), str(position), row.key, _values(row.values),
                          Text(f"↕ was {old}", style="magenta"))
        else:
            table.add_row("", str(position), row.key, _values(row.values), "")
    if not change.rows:
        table.add_row("", "", Text("(no rows)", style="dim"), "", "")
    return table


def plain_table(change):
    """The table the model sees in place of the original (a premise control), unmarked."""
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("key", overflow="fold")
    table.add_column("values", overflow="fold")
    for row in change.rows:
        if row.status != "deleted":
            table.add_row(row.key, _values(row.values))
    return table


# ---------------------------------------------------------------- tabprobe new-probe


def cmd_new_probe(args, console) -> int:
    name = args.name
    if not re.fullmatch(PROBE_NAME, name):
        raise UsageError(f"{name!r} is not a probe name: use letters, digits and underscores, starting with a letter "
                         "or digit (e.g. my_probe), as in config.yaml")
    if args.root:
        root = Path(args.root).resolve()
        if not is_root(root):
            raise UsageError(f"--root {args.root} is not the repository root: it has no Snakefile and "
                             "workflow/tabprobe/probes/__init__.py")
    else:
        root = find_root(Path.cwd())
        if root is None:
            raise UsageError("no repository here: run inside the checkout (the folder holding Snakefile and "
                             "workflow/tabprobe), or give it with --root")
    registry_file = root / "workflow" / "tabprobe" / "probes" / "__init__.py"
    module_file = registry_file.with_name(f"{name}.py")
    test_file = root / "tests" / f"test_probe_{name}.py"
    source = registry_file.read_text(encoding="utf-8")
    registered = registry_names(source, registry_file)
    # Everything is checked before anything is written.
    if name in registered:
        raise UsageError(f"a probe {name!r} is already registered in {registry_file}; choose another name "
                         "(`tabprobe probes` lists the registered ones). Nothing written.")
    existing = [str(path) for path in (module_file, test_file) if path.exists()]
    if existing:
        one = len(existing) == 1
        raise UsageError(f"{' and '.join(existing)} already exist{'s' if one else ''}; choose another name, or remove "
                         f"{'it' if one else 'them'} to start over. Nothing written.")
    registry = add_registry_line(source, name, registry_file)
    fields = {"name": name, "kind": args.kind}
    module = Template((TEMPLATES / KINDS[args.kind]).read_text(encoding="utf-8")).substitute(fields)
    test = Template((TEMPLATES / TEST_TEMPLATES[args.kind]).read_text(encoding="utf-8")).substitute(fields)
    test_file.parent.mkdir(parents=True, exist_ok=True)
    module_file.write_text(module, encoding="utf-8")
    test_file.write_text(test, encoding="utf-8")
    registry_file.write_text(registry, encoding="utf-8")

    def shown(path: Path) -> str:
        return str(path.relative_to(root))

    console.print(f"New {args.kind} probe {name!r}:")
    console.print(f"  wrote {shown(module_file)} (a small working probe to make your own)")
    console.print(f"  wrote {shown(test_file)} (tests of what it does; edit them with the probe)")
    console.print(f"  added \"{name}\" to REGISTRY in {shown(registry_file)}")
    console.print("Next:")
    steps = [
        f"edit {shown(module_file)}: apply() and the PROBE fields (the TODO comments say what to change)",
        f"tabprobe show {name} --split alpha1 -n 5        # what it does to real examples",
        f"python -m pytest {shown(test_file)} tests/test_probes.py -k {name}",
        f"add `{name}: {{}}` under probes: in config.yaml",
        "snakemake -n                # lists only the new probe's jobs (and the report)",
        "snakemake --cores all",
    ]
    for i, step in enumerate(steps, 1):
        console.print(f"  {i}. {step}")
    return 0


def _registry_dict(source: str, path: Path) -> ast.Dict:
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise CommandFailed(f"{path} does not parse ({error}); fix it first") from None
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign)
                                                                       and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == "REGISTRY" and isinstance(node.value, ast.Dict):
            return node.value
    raise CommandFailed(f"{path} has no `REGISTRY = {{...}}` dict to add the probe to")


def registry_names(source: str, path: Path) -> list[str]:
    """The probe names in REGISTRY, read from the file's text (the --root checkout may not be the
    library this command imported)."""
    return [key.value for key in _registry_dict(source, path).keys
            if isinstance(key, ast.Constant) and isinstance(key.value, str)]


def add_registry_line(source: str, name: str, path: Path) -> str:
    """`source` with `"name": "tabprobe.probes.name:PROBE",` after the last REGISTRY entry."""
    registry = _registry_dict(source, path)
    lines = source.splitlines(keepends=True)
    entry = f'"{name}": "tabprobe.probes.{name}:PROBE",'
    if not registry.keys:
        raise CommandFailed(f"REGISTRY in {path} is empty; add the line {entry} by hand")
    last_key, last_value = registry.keys[-1], registry.values[-1]
    if last_value.end_lineno == registry.end_lineno:
        raise CommandFailed(f"REGISTRY in {path} closes on the line of its last entry; add {entry} by hand")
    indent = " " * last_key.col_offset
    end_line = last_value.end_lineno - 1  # 0-based line of the last entry's end
    line = lines[end_line]
    after = line.encode("utf-8")[last_value.end_col_offset:].decode("utf-8")
    if not after.lstrip().startswith(","):
        cut = len(line) - len(after)
        lines[end_line] = line[:cut] + "," + after
    # After the last entry and any comment lines that follow it, before the closing brace.
    insert_at = registry.end_lineno - 1
    lines.insert(insert_at, f"{indent}{entry}\n")
    result = "".join(lines)
    if registry_names(result, path)[-1] != name:
        raise CommandFailed(f"could not add {name!r} to REGISTRY in {path}; add the line {entry} by hand")
    return result


# ---------------------------------------------------------------- tabprobe compare


def _results_folder(path: str) -> Path | None:
    """A run's results folder from the path a user gave (the workflow folder or results/ itself)."""
    folder = Path(path)
    for candidate in (folder, folder / "results"):
        if (candidate / "results.parquet").is_file():
            return candidate
    return None


def _run_models(folder: Path) -> dict:
    import json

    try:
        return json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CommandFailed(f"{folder / 'run.json'}: cannot be read ({error}); re-run the workflow to write it")


def cmd_compare(args, console) -> int:
    from rich import box
    from rich.table import Table as RichTable

    from . import compare, verdicts
    from .report_blocks import Stat

    left_folder, right_folder = _results_folder(args.left), _results_folder(args.right)
    if left_folder and right_folder:
        models_left, models_right = _run_models(left_folder)["models"], _run_models(right_folder)["models"]
        names = [args.model] if args.model else [m for m in models_left if m in models_right]
        if not names:
            raise UsageError(f"the two runs score no model in common ({', '.join(models_left)} / "
                             f"{', '.join(models_right)}): name one with --model")
        pairs = [(left_folder, m, right_folder, m) for m in names]
    elif left_folder or right_folder or Path(args.left).is_dir() or Path(args.right).is_dir():
        missing = args.right if left_folder else args.left
        raise UsageError(f"{missing}: no results.parquet there or in its results/ folder; compare two runs, or two "
                         "model names of one run (with --results)")
    else:
        folder = Path(args.results)
        if not (folder / "results.parquet").is_file():
            raise UsageError(f"{folder / 'results.parquet'} not found: run the workflow first, or pass --results")
        pairs = [(folder, args.left, folder, args.right)]
    for left_dir, left_model, right_dir, right_model in pairs:
        try:
            left, right = compare.load_side(left_dir, left_model), compare.load_side(right_dir, right_model)
        except compare.CompareError as error:
            raise UsageError(str(error)) from error
        rows = compare.compare(left, right, compare.scoring_settings(left_dir))
        table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                          title=f"{left.name}  vs  {right.name}", title_justify="left")
        for column in ("measure", "split", "A", "B", "A - B (paired, 95% CI)", "note"):
            table.add_column(column, overflow="fold")
        for row in rows:
            signed = row.measure.unit == "points"
            table.add_row(f"{row.measure.title} ({row.measure.unit}; {row.measure.better} is better)", row.split or "–",
                          Stat.of(row.left, signed=signed).text(), Stat.of(row.right, signed=signed).text(),
                          Stat.of(row.difference, signed=True).text() if row.difference else "–", row.note)
        sides = []
        for side, folder in ((left, left_dir), (right, right_dir)):
            record = _run_models(folder)
            facts = verdicts.facts_of(record["models"], record.get("relevance", {}))
            sides.append(verdicts.short_verdict(verdicts.verdict(side.table, side.model, facts[side.model]))
                         if side.model in facts else "not probed for a verdict (derived model)")
        table.add_row("Verdict", "", sides[0], sides[1], "", "")
        console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
