"""The scorecard: the scores that decide the verdicts, one column each, with which way is good and
the paper's RoBERTa-large beside them where the paper has the number."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tabprobe.data.datasets import all_datasets
from tabprobe.probes.base import NEEDED_ROWS, OWN_EVIDENCE, TABLE_REMOVED, VERDICT_ROLES, WRONG_TABLE
from tabprobe.report.plan import Catalog, registered_catalog
from tabprobe.report.power import too_few_cell
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index


@dataclass(frozen=True)
class Measure:
    """One column of the scorecard: a score that decides a verdict, and which way is good."""

    title: str
    probe: str  # the probe (or pooled paper column) whose score it is: the one that gives its role
    statistic: str
    unit: str  # "%" or "points"
    better: str  # "higher" or "lower"
    # RoBERTa-large's value in the paper where one can be set beside it, and where it comes from
    paper: float | None = None
    paper_source: str = ""


_ROBERTA = paper.TABLE1_ACCURACY["RoBERTa-large (premise + hypothesis)"]
_HYPOTHESIS_ONLY = paper.TABLE1_ACCURACY["Hypothesis only"]


def _drop(table: Mapping, column: str) -> float:
    """The paper's RoBERTa-large on alpha1: original minus `column` (means of Tables 4 and 7)."""
    cells = table["alpha1"]["Prem+Hypo"]
    return round(cells[paper.UNPERTURBED][0] - cells[column][0], 2)


# Which way a drop is good, by the verdict number it gives: a premise control's drop shows the model
# reads its premise; any other edit's drop is a failure.
HIGHER_IS_BETTER = (TABLE_REMOVED, WRONG_TABLE)


def _first(catalog: Catalog, number: str) -> str | None:
    found = catalog.role(number)
    return found[0] if found else None


def paper_scorecard(catalog: Catalog) -> list[Measure]:
    """The paper dataset's scorecard: the numbers its verdicts rest on, with the paper's RoBERTa-large
    beside each where the paper has it (paper.py types each table once). Its probes by role: a
    number no registered probe gives is left out."""
    baseline = catalog.dataset.baseline_probe
    removed, needed, evidence = (_first(catalog, n) for n in (TABLE_REMOVED, NEEDED_ROWS, OWN_EVIDENCE))
    measures = [
        Measure("Accuracy", baseline, "accuracy", "%", "higher", _ROBERTA["alpha1"], "Table 1 (alpha1)"),
        Measure(
            "Gain over the hypothesis-only baseline",
            baseline,
            "accuracy_gain_over_baseline",
            "points",
            "higher",
            round(_ROBERTA["alpha1"] - _HYPOTHESIS_ONLY["alpha1"], 2),
            "Table 1: RoBERTa-large minus the hypothesis-only model (alpha1), not paired",
        ),
        Measure("Drop with the table removed", removed, "accuracy_drop", "points", "higher") if removed else None,
        Measure("Stays put when its relevant rows are deleted", needed, "unchanged_where_required_pct", "%", "lower")
        if needed
        else None,
        Measure(
            "Decided by wrong or no rows",
            evidence,
            "uses_wrong_or_no_rows_pct",
            "%",
            "lower",
            paper.EVIDENCE_SELECTION[("uses_wrong_or_no_rows_pct", "all")],
            "section 5.3",
        )
        if evidence
        else None,
        Measure(
            "Drop on label-flipping hypothesis edits",
            "table4:label_flipped",
            "accuracy_drop",
            "points",
            "lower",
            _drop(paper.TABLE4, "label_flipped"),
            "Table 4 (alpha1): original minus label flipped",
        ),
        Measure(
            "Drop on counterfactual tables, label kept",
            "table7:label_preserved",
            "accuracy_drop",
            "points",
            "lower",
            _drop(paper.TABLE7, "label_preserved"),
            "Table 7 (alpha1): original minus label preserved",
        ),
    ]
    return [m for m in measures if m]


def own_scorecard(catalog: Catalog) -> list[Measure]:
    """Another dataset's scorecard (its part's verdicts, report/own_verdicts.py): its baseline probe's
    accuracy, gain and NEUTRAL share, then each probe that gives a verdict number and names its
    column (`Role.scorecard`), by role, each on the first of its splits measured. No paper prints
    these for RoBERTa-large."""
    dataset = catalog.dataset
    title, baseline = dataset.title, dataset.baseline_probe
    measures = [
        Measure(f"{title}: accuracy", baseline, "accuracy", "%", "higher"),
        Measure(
            f"{title}: gain over the hypothesis-only baseline",
            baseline,
            "accuracy_gain_over_baseline",
            "points",
            "higher",
        ),
        Measure(
            f"{title}: NEUTRAL answers, read as {dataset.label_names['C']}",
            baseline,
            "neutral_answers_pct",
            "%",
            "lower",
        ),
    ]
    for number in VERDICT_ROLES:
        for probe in catalog.role(number):
            role = catalog.declaration(probe).verdict_role
            if role.scorecard:
                better = "higher" if number in HIGHER_IS_BETTER else "lower"
                measures.append(Measure(f"{title}: {role.scorecard}", probe, "accuracy_drop", "points", better))
    return measures


def every_scorecard() -> list[Measure]:
    """Every registered dataset's scorecard, the paper's first (`tabprobe compare` compares them all)."""
    datasets = sorted(all_datasets(), key=lambda d: not d.paper)
    catalogs = [registered_catalog(d.name) for d in datasets]
    return [m for c in catalogs for m in (paper_scorecard(c) if c.dataset.paper else own_scorecard(c))]


def scorecard_cell(results: Index, model: str, measure: Measure) -> tuple[str, dict] | None:
    """(split, score) of a measure for a model, on the first split where it has an interval."""
    return results.first(model, measure.probe, measure.statistic, needs_interval=True)


def shown_cell(results: Index, model: str, measure: Measure) -> tuple[str, dict] | None:
    """What the scorecard's table shows of a measure: its cell, else the note that its probe held too
    few examples (report.power), which decides nothing and is drawn in no figure."""
    return scorecard_cell(results, model, measure) or too_few_cell(results, model, measure.probe, measure.statistic)
