"""The numeric probes (numerical-qa-robustness, diversify-your-datasets) and the controlled-variance
experiment: accuracy by number range along a learning curve of fine-tuning on one range."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe.config.names import VARIANCE_PROBE, VARIANCE_TEST_SPLIT, range_probe, trained_name
from tabprobe.report import figures
from tabprobe.report.blocks import Figure, Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.report.tables import DROP_EXPLAINED, probe_family_section
from tabprobe.scoring.results import Index


def numeric_section(scores: Index, run: RunInfo) -> Section | None:
    return probe_family_section(
        scores,
        run,
        "numeric",
        "Numeric probes",
        run.plan.dataset.report.texts["numeric"] + DROP_EXPLAINED,
        "Accuracy (mean (std), n; paired drop: lower is better, a drop means the rewrite misled it)",
    )


def _spread_text(s: dict) -> str:
    """mean (std) [lowest, highest] over the repeats, as the summary holds it."""
    if s["mean"] is None:
        return "–"
    return (
        f"{s['mean']:.2f}"
        + (f" ({s['std']:.2f})" if s["std"] is not None else "")
        + f" [{s['min']:.2f}, {s['max']:.2f}] over {s['repeats']}"
    )


def _size_heading(size: int) -> str:
    return "0 (before)" if size == 0 else f"{size:,}"


def variance_section(scores: Index, run: RunInfo) -> Section | None:
    """Controlled variance (diversify-your-datasets section 3): accuracy by number range along the
    learning curve (training size 0, the model before, to the largest), as a figure and a table of
    the mean and spread over the repeats, and each repeat's own accuracy at the largest size."""
    if not run.variance:
        return None
    section = Section("Controlled variance: number ranges (diversify-your-datasets section 3)")
    for model, summary in run.variance.items():
        section.blocks += [
            _variance_intro(model, summary),
            _learning_curve_figure(model, summary),
            _learning_curve_table(model, summary),
            _per_repeat_table(scores, model, summary),
        ]
    return section


def _variance_intro(model: str, summary: Mapping[str, Any]) -> str:
    """What the model was fine-tuned and tested on, and how to read the cells."""
    sizes = summary["sizes"]
    return (
        f"`{model}` fine-tuned on `{VARIANCE_PROBE}` examples ('The {{key}} of {{title}} is more than / less than / exactly "
        f"N', labelled by rule) from train tables whose numbers lie in {summary['train_range']}, then tested on such "
        f"examples from alpha1 tables in each range; {summary['repeats']} repeats, each with its own examples, numbers "
        f"and seed, and within a repeat one fine-tuning per training size ({', '.join(f'{s:,}' for s in sizes[1:])}), "
        "nested: a smaller size trains on the start of a larger one's examples. Size 0 is the model before "
        "fine-tuning; every size of a repeat is tested on the same examples. A model that learned to compare "
        "numbers does as well on every range; the paper's BERT learned its training range and stayed below 70% on "
        "the others however many examples it saw (its Figure 3, right; 1000-9999 looked like 200-299). Cells: "
        "mean over the repeats (standard deviation) [lowest, highest]; each repeat's own accuracy, with its "
        "interval over the samplings, below."
    )


def _learning_curve_figure(model: str, summary: Mapping[str, Any]) -> Figure:
    """Accuracy on each test range against training size, the training range emphasised."""
    return Figure(
        figures.learning_curve(
            [
                figures.CurveSeries(
                    ranges["range"] + (" (trained on)" if ranges["range"] == summary["train_range"] else ""),
                    [figures.CurvePoint(p["size"], p["mean"], p["min"], p["max"]) for p in ranges["curve"]],
                    emphasised=ranges["range"] == summary["train_range"],
                )
                for ranges in summary["ranges"]
            ],
            f"{model}: accuracy by number range against training size",
            "accuracy (%), mean over the repeats",
            salt=f"variance-{model}",
        ),
        f"Model {model}: accuracy on each test range against the number of training examples in "
        f"{summary['train_range']} (0: before fine-tuning); points are the mean over {summary['repeats']} "
        "repeats, bars run from the lowest repeat to the highest. The table below holds the same numbers.",
        path=f"numeric/{model}/controlled-variance.svg",
    )


def _learning_curve_table(model: str, summary: Mapping[str, Any]) -> TableBlock:
    """The figure's numbers: mean (spread) over the repeats per test range and training size."""
    rows = []
    for ranges in summary["ranges"]:
        label = ranges["range"]
        rows.append(
            [label + (" (trained on)" if label == summary["train_range"] else "")]
            + [_spread_text(p) for p in ranges["curve"]]
        )
    return TableBlock(
        ["Test range"] + [_size_heading(size) for size in summary["sizes"]],
        rows,
        caption=f"Model {model}: accuracy by number range and training size (the learning curve)",
    )


def _per_repeat_table(scores: Index, model: str, summary: Mapping[str, Any]) -> TableBlock:
    """Each repeat's own accuracy per test range, with its interval, at the largest training size."""
    largest = summary["sizes"][-1]
    trained = trained_name(model, largest)
    repeats = sorted(scores.labels(trained), key=lambda label: int(label[1:]))  # r1, r2, ...
    per_repeat = []
    for label in (r["range"] for r in summary["ranges"]):
        cells = [label]
        for repeat in repeats:
            cells.append(
                Stat.of(
                    scores.get(
                        model=trained,
                        probe=range_probe(label),
                        split=VARIANCE_TEST_SPLIT,
                        statistic="accuracy",
                        label=repeat,
                    )
                )
            )
        per_repeat.append(cells)
    return TableBlock(
        ["Test range"] + [f"repeat {r[1:]}" for r in repeats],
        per_repeat,
        caption=f"Model {model} after fine-tuning on {largest:,} examples, each repeat",
    )
