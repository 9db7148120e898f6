"""`tabprobe compare A B`: two models of one run, or the models of two runs, side by side on the
scorecard, with paired differences and each side's verdict (tabprobe.report.compare)."""

from __future__ import annotations

from pathlib import Path

from tabprobe import layout
from tabprobe.cli.errors import CommandFailed, UsageError


def _results_folder(path: str) -> Path | None:
    """A run's results folder from the path a user gave (the workflow folder or results/ itself)."""
    folder = Path(path)
    for candidate in (folder, folder / layout.RESULTS):
        if Path(layout.results_table(candidate)).is_file():
            return candidate
    return None


def _run_models(folder: Path) -> dict:
    import json

    path = Path(layout.run_record(folder))
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CommandFailed(f"{path}: cannot be read ({error}); re-run the workflow to write it") from error


def cmd_compare(args, console) -> int:
    from rich import box
    from rich.table import Table as RichTable

    from tabprobe.data.datasets import get_dataset, paper_dataset
    from tabprobe.report import compare
    from tabprobe.report.blocks import Stat

    left_folder, right_folder = _results_folder(args.left), _results_folder(args.right)
    here = Path(args.results)
    # Two models of the --results run, even where a folder by one of their names is at hand (a
    # checkpoint folder named like its model, say).
    if Path(layout.results_table(here)).is_file() and {args.left, args.right} <= set(_run_models(here)["models"]):
        pairs = [(here, args.left, here, args.right)]
    elif left_folder and right_folder:
        models_left, models_right = _run_models(left_folder)["models"], _run_models(right_folder)["models"]
        names = [args.model] if args.model else [m for m in models_left if m in models_right]
        if not names:
            raise UsageError(
                f"the two runs score no model in common ({', '.join(models_left)} / "
                f"{', '.join(models_right)}): name one with --model"
            )
        pairs = [(left_folder, m, right_folder, m) for m in names]
    elif left_folder or right_folder or Path(args.left).is_dir() or Path(args.right).is_dir():
        missing = args.right if left_folder else args.left
        raise UsageError(
            f"{missing}: no results.parquet there or in its results/ folder; compare two runs, or two "
            "model names of one run (with --results)"
        )
    else:
        folder = Path(args.results)
        if not Path(layout.results_table(folder)).is_file():
            raise UsageError(f"{layout.results_table(folder)} not found: run the workflow first, or pass --results")
        pairs = [(folder, args.left, folder, args.right)]
    for left_dir, left_model, right_dir, right_model in pairs:
        try:
            left, right = compare.load_side(left_dir, left_model), compare.load_side(right_dir, right_model)
        except compare.CompareError as error:
            raise UsageError(str(error)) from error
        rows = compare.compare(left, right, compare.scoring_settings(left_dir))
        table = RichTable(
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            title=f"{left.name}  vs  {right.name}",
            title_justify="left",
        )
        for column in ("measure", "split", "A", "B", "A - B (paired, 95% CI)", "note"):
            table.add_column(column, overflow="fold")
        for row in rows:
            signed = row.measure.unit == "points"
            table.add_row(
                f"{row.measure.title} ({row.measure.unit}; {row.measure.better} is better)",
                row.split or "–",
                Stat.of(row.left, signed=signed).text(),
                Stat.of(row.right, signed=signed).text(),
                Stat.of(row.difference, signed=True).text() if row.difference else "–",
                row.note,
            )
        # A verdict per dataset either side answered; a run of the paper's dataset alone has the one row it always had.
        sides = [
            compare.side_verdicts(side, _run_models(folder)) for side, folder in ((left, left_dir), (right, right_dir))
        ]
        answered = [dataset for dataset in sides[0] if sides[0][dataset] or sides[1].get(dataset)]
        paper = paper_dataset().name
        for dataset in answered or [paper]:
            title = get_dataset(dataset).title
            cells = [found.get(dataset) or f"answers no {title} probe" for found in sides]
            table.add_row("Verdict" if answered == [paper] else f"Verdict ({title})", "", *cells, "", "")
        console.print(table)
    return 0
