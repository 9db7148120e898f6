"""Accuracy on a dataset's unperturbed examples (its baseline probe), the one section every part of
the report shares: each model's mean (std) [interval] n per split; a three-way model's NEUTRAL
answers on a two-label dataset beside it; the accuracy a paper published on the dataset, where its
`ReportPart.published_accuracy` names some, with each model's gap to the row of its kind; and where
chance is the majority class, the accuracy of always answering it."""

from __future__ import annotations

from tabprobe.data.datasets import PublishedAccuracy, resolve
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.report.own_verdicts import majority_pct
from tabprobe.report.plan import DatasetPlan

# "{baseline}": the baseline probe's name (a dataset's `accuracy_title` text may say more of its splits).
TITLE = "Accuracy on the unperturbed splits (probe `{baseline}`)"
MAJORITY_ROW = "always the majority label"


def accuracy_section(run: RunInfo) -> Section | None:
    """The section of the part `run` is (RunInfo.of_part); None where its baseline probe has no scores."""
    plan: DatasetPlan = run.plan
    splits = run.shown_splits([plan.baseline])
    if not splits:
        return None
    texts, models = plan.dataset.report.texts, list(run.models)
    published = resolve(plan.dataset.report.published_accuracy) if plan.dataset.report.published_accuracy else None
    majority = plan.dataset.report.chance == "majority"
    section = Section(texts.get("accuracy_title", TITLE).format(baseline=plan.baseline))
    section.blocks.append(
        texts.get("accuracy", "")
        + f"Mean (standard deviation) of accuracy over {run.scoring['samplings']} samplings of "
        f"{run.scoring['fraction']:.0%} of the examples, and a {run.scoring['confidence']:.0%} percentile bootstrap "
        f"interval ({run.scoring['bootstrap']} resamples)."
        + (f" {published.source}" if published else "")
        + (" The last row answers the commoner label every time." if majority else "")
    )
    neutral = plan.has_neutral_answers(models)
    header = ["Model", *splits] + ([f"{s}: NEUTRAL answers (%)" for s in splits] if neutral else [])
    rows = []
    for m in models:
        cells = [Stat.of(plan.scores.get(m, plan.baseline, s, "accuracy")) for s in splits]
        if neutral:
            cells += [Stat.of(plan.scores.get(m, plan.baseline, s, "neutral_answers_pct")) for s in splits]
        rows.append([m, *cells])
    for name, values in (published.rows if published else {}).items():
        rows.append([f"paper: {name}"] + [Stat.reference(values.get(s)) for s in splits] + [""] * neutral * len(splits))
    if majority:
        shares = [next((v for m in models if (v := majority_pct(plan, m, s)) is not None), None) for s in splits]
        rows.append([MAJORITY_ROW] + [Stat(share) for share in shares] + [""] * neutral * len(splits))
    section.blocks.append(TableBlock(header, rows))
    if published and (gaps := _gaps(plan, run, splits, published)):
        section.blocks.append(f"{published.gaps}: " + "; ".join(gaps) + ".")
    return section


def _gaps(plan: DatasetPlan, run: RunInfo, splits: list[str], published: PublishedAccuracy) -> list[str]:
    """Each model's gap to the published row of its kind, split by split."""
    gaps = []
    for model, info in run.models.items():
        row = published.hypothesis_only_row if info["premise"] == HYPOTHESIS_ONLY else published.premise_row
        diffs = []
        for split in splits:
            r = plan.scores.get(model, plan.baseline, split, "accuracy")
            ref = published.rows[row].get(split)
            if r and r["mean"] is not None and ref is not None:
                diffs.append(f"{split} {r['mean'] - ref:+.1f}")
        if diffs:
            gaps.append(f"{model} vs paper {row}: {', '.join(diffs)} points")
    return gaps
