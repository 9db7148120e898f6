"""The first screen: a verdict per model (`tabprobe.report.verdicts`), the scorecard of the numbers that
decide them, and every probe's effect at a glance, each read in the direction that is good."""

from __future__ import annotations

from tabprobe.config.names import is_trained_name
from tabprobe.data.datasets import paper_dataset
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.report import figures, scorecard, verdict_terms, verdicts
from tabprobe.report.blocks import Figure, Section, Stat, TableBlock, VerdictBlock
from tabprobe.report.dimensions import DIMENSIONS, dimension_of
from tabprobe.report.inputs import RunInfo
from tabprobe.report.power import too_few_cell
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index

# The paper dataset's showcase order (`ReportPart.showcase_order`), which the summary table reads.
SHOWCASE_ORDER = paper_dataset().report.showcase_order


def verdict_section(run: RunInfo) -> Section:
    section = Section("Verdicts: does each model use the evidence in its table?", anchor="verdicts")
    section.blocks.append(
        'Each verdict rests on the numbers listed under it, with their 95% intervals; "cannot tell" means the '
        "intervals allow both readings or the numbers disagree. How numbers become verdicts is written down under "
        "the scorecard (and in workflow/tabprobe/report/verdicts.py)."
    )
    section.blocks += [VerdictBlock(v) for v in run.verdicts.values()]
    return section


def _scorecard_models(scores: Index, run: RunInfo) -> list[str]:
    """The probed models, then the models derived from them (inoculated), in name order."""
    derived = [m for m in scores.models() if m not in run.models and not is_trained_name(m)]
    return list(run.models) + derived


def scorecard_section(scores: Index, run: RunInfo) -> Section:
    section = Section("Scorecard: the numbers that decide the verdicts, one row per model", anchor="scorecard")
    models = _scorecard_models(scores, run)
    card = scorecard.paper_scorecard(run.plan.catalog)
    measures = [m for m in card if any(scorecard.shown_cell(scores, model, m) for model in models)]
    rows = []
    for model in models:
        cells: list = [model]
        for measure in measures:
            found = scorecard.shown_cell(scores, model, measure)
            cells.append(Stat.of(found[1], signed=measure.unit == "points") if found else "–")
        verdict = run.verdicts.get(model)
        cells.append(verdicts.short_verdict(verdict) if verdict else "not probed for a verdict (derived model)")
        rows.append(cells)
    rows.append(
        ["paper: RoBERTa-large"]
        + [Stat(m.paper, signed=m.unit == "points") if m.paper is not None else "–" for m in measures]
        + [""]
    )
    splits = sorted(
        {found[0] for model in models for m in measures if (found := scorecard.scorecard_cell(scores, model, m))},
        key=SHOWCASE_ORDER.index,
    )
    section.blocks.append(
        TableBlock(
            ["Model"] + [f"{m.title} ({m.unit}; {m.better} is better)" for m in measures] + ["Verdict"],
            rows,
            caption=f"Each number on the first split where it was measured ({', '.join(splits)}), mean (std) [95% CI] n",
        )
    )
    sources = "; ".join(f"{m.title}: {m.paper_source}" for m in measures if m.paper_source)
    if sources:
        section.blocks.append(f"The paper's row: {sources}. Differences of the paper's means are not paired.")
    panels = []
    for measure in measures:
        points = []
        for model in models:
            found = scorecard.scorecard_cell(scores, model, measure)
            # A probe with too few examples has no point, only its n beside the model's name.
            too_few = None if found else scorecard.shown_cell(scores, model, measure)
            n = too_few[1]["n"] if too_few else 0
            score = found[1] if found else {"mean": None, "ci_low": None, "ci_high": None, "n": n}
            points.append(
                figures.ChartPoint(
                    f"{measure.better} is better",
                    model,
                    score["mean"],
                    score["ci_low"],
                    score["ci_high"],
                    score["n"],
                    measure.paper,
                )
            )
        panels.append(
            figures.ChartPanel(f"{measure.title} ({measure.unit})", points, zero_line=measure.unit == "points")
        )
    if panels:
        section.blocks.append(
            Figure(
                figures.dot_chart(panels, "Scorecard: every model on the deciding numbers", salt="scorecard"),
                "Mean and 95% interval of each deciding number per model; red ticks: the paper's RoBERTa-large.",
                path="summary/all-models/scorecard.svg",
            )
        )
    section.blocks.append("How the verdicts are decided (workflow/tabprobe/report/verdicts.py):")
    section.blocks += [
        f"({i}) {rule}" for i, rule in enumerate(verdict_terms.rules(verdicts.paper_chance_pct(run.plan)), start=1)
    ]
    return section


def _summary_rows(scores: Index, run: RunInfo, model: str) -> list[tuple[str, str, str, Stat, str]]:
    """(dimension, probe or pooled column, measure, value, split) for one model: the paired
    accuracy drop of every probe judged by a label (and of the pooled columns of paper Tables 4
    and 7), the invalid-transition % of every table probe; each on the first split (of
    SHOWCASE_ORDER) where it has a value."""
    rows = []
    entries = [
        (dimension_of(run.plan.probe(p)), p, run.plan.probe(p).judged_by)
        for p in run.probes
        if p != run.plan.baseline and run.plan.probe(p).judged_by != "evidence"
    ]
    for table, dimension in (("table4", "artifacts"), ("table7", "counterfactuals")):
        for column, members in run.plan.pooled(table).items():
            if members:
                entries.append((dimension, f"{table}:{column}", "expected"))
    for dimension, name, judged_by in entries:
        transitions = judged_by == "transitions"
        statistic = "invalid_transition_pct" if transitions else "accuracy_drop"
        # Too few examples on every split: listed in the table with its n, drawn in no figure.
        found = scores.first(model, name, statistic) or too_few_cell(scores, model, name, statistic)
        if found is None:
            continue
        split, score = found
        label = name
        if ":" in name:
            table, column = name.split(":")
            label = f"paper {table.replace('table', 'Table ')}: {column.replace('_', ' ')} (pooled)"
        rows.append(
            (
                dimension,
                label,
                "invalid transitions (%)" if transitions else "accuracy drop (points)",
                Stat.of(
                    score,
                    signed=not transitions,
                    paper=paper.summary_tick(name, "invalid_transition_pct" if transitions else "accuracy_drop", split),
                ),
                split,
            )
        )
    order = list(DIMENSIONS)
    return sorted(rows, key=lambda r: order.index(r[0]))  # stable: probes keep their config order


def better_direction(run: RunInfo, name: str, measure: str) -> str:
    """Which way a summary number is good, in words."""
    if measure.startswith("invalid"):
        return "lower, if predictions move where the table changes"
    if "flipped" in name or (":" not in name and run.plan.probe(name).label_change == "flipped"):
        return "lower: a drop means it missed the flip"
    if ":" not in name and run.plan.probe(name).family == "premise_control":
        return "higher: a drop means it reads the premise"
    return "lower"


def summary_section(scores: Index, run: RunInfo) -> Section:
    section = Section("Summary: every probe at a glance", anchor="summary")
    lines = []
    for model, info in run.models.items():
        split = next(
            (
                s
                for s in SHOWCASE_ORDER
                if scores.get(model=model, probe=run.plan.baseline, split=s, statistic="accuracy", label="all")
            ),
            None,
        )
        if split:
            accuracy = Stat.of(
                scores.get(model=model, probe=run.plan.baseline, split=split, statistic="accuracy", label="all")
            )
            sees = (
                "hypothesis only" if info["premise"] == HYPOTHESIS_ONLY else f"table as {info['premise']} + hypothesis"
            )
            lines.append(f"{model} ({sees}): accuracy {accuracy.text()} on {split}")
    section.blocks.append(
        "How each model's accuracy moves under each probe, grouped by the paper's dimensions: for probes judged by a "
        "label, the paired drop in accuracy (the same gold examples before and after the change; positive = the probe "
        "hurt); for table perturbations, the share of predictions that moved in a way the transition rule forbids. "
        f"Points are means over {run.scoring['samplings']} samplings of {run.scoring['fraction']:.0%} of the examples, "
        f"bars their {run.scoring['confidence']:.0%} bootstrap interval, red ticks the paper's RoBERTa-large (an "
        "invalid-transition tick is the mean of its three per-label cells; a pooled drop its original minus its "
        f"column), on the probe's first split of {', '.join(SHOWCASE_ORDER)}. Which way is good is in the table's "
        "last column. A drop under a premise control is what a model that reads its table shows; a drop under a "
        "label-preserving edit is a failure. Few invalid transitions are a merit only in a model whose predictions "
        "move where the table changes: a model that ignores its table never moves and has none (the Verdicts above "
        "say which models do). A probe with fewer examples than its minimum n is listed in the table with its n "
        "and drawn in no figure. " + ("; ".join(lines) + "." if lines else "")
    )
    table_rows = []
    for model in run.models:
        rows = _summary_rows(scores, run, model)
        if not rows:
            continue
        panels = []
        for measure in ("accuracy drop (points)", "invalid transitions (%)"):
            points = [
                figures.ChartPoint(DIMENSIONS[d], name, stat.mean, stat.low, stat.high, stat.n or 0, stat.paper)
                for d, name, m, stat, _ in rows
                if m == measure and not stat.too_few
            ]
            if points:
                panels.append(figures.ChartPanel(f"{measure[0].upper()}{measure[1:]}", points, zero_line=True))
        if panels:  # none where every probe of the model held too few examples
            section.blocks.append(
                Figure(
                    figures.dot_chart(panels, f"{model}: accuracy under each probe", salt=f"summary-{model}"),
                    f"Model {model}: mean and {run.scoring['confidence']:.0%} interval of each probe's effect, the "
                    "paper's RoBERTa-large as a red tick where it has a comparable number; n is the number of examples.",
                    path=f"summary/{model}/all-probes.svg",
                )
            )
        table_rows += [
            [DIMENSIONS[d], name, model, split, measure, stat, better_direction(run, name, measure)]
            for d, name, measure, stat, split in rows
        ]
    if table_rows:
        section.blocks.append(
            TableBlock(
                ["Dimension", "Probe", "Model", "Split", "Measure", "Mean (std) [95% CI] n", "Better"],
                table_rows,
                caption="Every probe at a glance (click a column to sort)",
            )
        )
    return section
