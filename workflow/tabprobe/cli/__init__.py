"""The `tabprobe` command: list the probes, show what one does, start a new one.

    tabprobe probes
    tabprobe show PROBE [--split SPLIT] [-n 5] [--model MODEL] [--results results] [--configfile config.yaml]
    tabprobe new-probe NAME [--dataset NAME] [--kind KIND] [--root DIR]
    tabprobe curate PROBE [--split SPLIT] [--only C2E|heuristic|all] [--out curation]
    tabprobe compare A B [--results results] [--model MODEL]

`show` without --model applies the probe in this process to the workflow's ingested split
(building that with Snakemake first if it is missing), so a probe being written can be looked at
before it is in config.yaml; with --model it reads the workflow's outputs and shows a seeded
handful of the examples that model failed. `curate` writes the label flips a person must check
(tabprobe.probes.curation) to a review page and a TSV. Changes are marked with symbols as well as colour, so
the output reads the same in a pipe: [-removed-] and {+added+} text in the hypothesis, and in the
table − deleted, + inserted, ~ changed (old → new) and ↕ moved rows.

Here are the parser and the exit codes; each command is a module of this package (probes, show,
curate, new_probe, compare), beside what they share: configfile (the config a command reads),
workflow (the repository, its outputs, Snakemake) and terminal (the console, changes drawn on it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tabprobe.cli.compare import cmd_compare
from tabprobe.cli.curate import cmd_curate
from tabprobe.cli.errors import CommandFailed, UsageError
from tabprobe.cli.new_probe import ALL_KINDS, cmd_new_probe
from tabprobe.cli.probes import cmd_probes, judged_by
from tabprobe.cli.show import cmd_show
from tabprobe.cli.terminal import stdout_console
from tabprobe.errors import TabprobeError

__all__ = ["main", "judged_by", "UsageError", "CommandFailed"]


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
        return args.run(args, stdout_console())
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabprobe",
        description="Probes of tabular NLI models: list them, show what they do, start a new one. "
        "The workflow itself runs with `snakemake --cores all` (README.md; this command: docs/cli.md).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_probes(commands)
    _add_show(commands)
    _add_new_probe(commands)
    _add_curate(commands)
    _add_compare(commands)
    return parser


def _add_probes(commands: argparse._SubParsersAction) -> None:
    """`tabprobe probes`: the registered probes."""
    probes = commands.add_parser(
        "probes",
        help="list the registered probes",
        description="The registered probes: how each is judged, its family, paper section and what it does.",
    )
    probes.set_defaults(run=cmd_probes)


def _add_show(commands: argparse._SubParsersAction) -> None:
    """`tabprobe show PROBE`: examples of a probe, or a model's failures on it."""
    show = commands.add_parser(
        "show",
        help="show examples of a probe, or a model's failures on it",
        description="Without --model: apply PROBE to the first examples of the ingested split (results/data/"
        "SPLIT.parquet, built with snakemake if missing) and show each change. With --model: show a "
        "seeded handful of the probe examples that MODEL failed, from the workflow's outputs.",
    )
    show.add_argument("probe", metavar="PROBE", help="a registered probe (see `tabprobe probes`) or an external set")
    show.add_argument(
        "--split",
        help="split of the probe's dataset to take examples from (default: the first split its dataset's report "
        "shows that the probe runs on: alpha1 for the paper's)",
    )
    show.add_argument("-n", type=int, default=5, help="how many examples to show (default: 5)")
    show.add_argument("--model", help="show the examples this model (a name under models: in config) failed")
    show.add_argument("--results", default="results", help="the workflow's results folder (default: ./results)")
    show.add_argument("--configfile", help="config to read the seed and probe options from (default: ./config.yaml)")
    show.set_defaults(run=cmd_show)


def _add_new_probe(commands: argparse._SubParsersAction) -> None:
    """`tabprobe new-probe NAME --dataset DATASET`: a new probe's module, registry line and test."""
    new = commands.add_parser(
        "new-probe",
        help="start a new probe of a dataset: module, registry line and test",
        description="Write workflow/tabprobe/probes/DATASET/KIND/NAME.py (a small working probe to edit, from the "
        "template of the dataset's table type), add its line to PROBES in workflow/tabprobe/probes/DATASET/"
        "registry.py and write tests/probes/test_probe_NAME.py. A dataset of your own (config `datasets:`) gets "
        "the module and its test beside its registry module.",
    )
    new.add_argument("name", metavar="NAME", help="the probe's name: letters, digits and underscores")
    new.add_argument("--dataset", help="the dataset whose examples it edits (default: the paper's, `Dataset.paper`)")
    new.add_argument(
        "--root",
        help="the repository root (default: the folder above the current one that holds "
        "Snakefile and workflow/tabprobe)",
    )
    new.add_argument(
        "--kind",
        choices=ALL_KINDS,
        help="of an infobox dataset: table (edits the table, judged by a transition rule; the default) or "
        "hypothesis (edits the hypothesis with its spaCy parse, judged by an expected label); of a relational "
        "one: record (moves a record, judged by a transition rule; the default) or statement (edits the "
        "statement, judged by an expected label)",
    )
    new.add_argument("--configfile", help="config naming your own datasets, if any (default: ./config.yaml)")
    new.set_defaults(run=cmd_new_probe)


def _add_curate(commands: argparse._SubParsersAction) -> None:
    """`tabprobe curate PROBE`: the label flips a person must check."""
    curate = commands.add_parser(
        "curate",
        help="write the label flips a person must check to a review page and TSV",
        description="Apply PROBE to the ingested split as the workflow does (config's seed, options and cap) and "
        "write the examples whose label a person must confirm (CONTRADICT -> ENTAIL flips, heuristic "
        "flips; paper section 4) to OUT/PROBE.SPLIT.curation.html (a page with keys to accept, reject or "
        "relabel, saving the TSV) and OUT/PROBE.SPLIT.curation.tsv (the same for a spreadsheet). Earlier "
        "decisions, from the probe's curation files in config and from that TSV, are filled in. Name the "
        "saved TSV under probes.PROBE.curation in config.yaml; the workflow applies it.",
    )
    curate.add_argument("probe", metavar="PROBE", help="a registered probe judged by expected labels")
    curate.add_argument("--split", help="split of the probe's dataset to review (default: as for show)")
    curate.add_argument(
        "--only",
        choices=["C2E", "heuristic", "all"],
        default="all",
        help="C2E: CONTRADICT -> ENTAIL flips; heuristic: flips made by a heuristic; all: both (default)",
    )
    curate.add_argument("--out", default="curation", help="folder for the page and the TSV (default: ./curation)")
    curate.add_argument("--results", default="results", help="the workflow's results folder (default: ./results)")
    curate.add_argument(
        "--configfile", help="config to read the seed, probe options and caps from (default: ./config.yaml)"
    )
    curate.set_defaults(run=cmd_curate)


def _add_compare(commands: argparse._SubParsersAction) -> None:
    """`tabprobe compare A B`: two models, or two runs, side by side."""
    compare = commands.add_parser(
        "compare",
        help="two models side by side on the scorecard, with paired differences",
        description="Compare two models of one run (`tabprobe compare MODEL_A MODEL_B`, in --results) or the "
        "models of two runs (`tabprobe compare RUN_A RUN_B`: each a workflow folder or its results/ "
        "folder; every model both runs scored, or --model). Shows each side's scorecard numbers and "
        "verdict, and left minus right, paired on the examples both sides share.",
    )
    compare.add_argument("left", metavar="A", help="a model name, or a run's folder")
    compare.add_argument("right", metavar="B", help="a model name, or a run's folder")
    compare.add_argument(
        "--results",
        default="results",
        help="the results folder of the run whose models are compared (default: ./results)",
    )
    compare.add_argument("--model", help="with two runs: the model to compare (default: every model both scored)")
    compare.set_defaults(run=cmd_compare)
