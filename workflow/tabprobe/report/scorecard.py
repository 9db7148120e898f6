"""The scorecard: the scores that decide the verdicts, one column each, with which way is good and
the paper's RoBERTa-large beside them where the paper has the number."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tabprobe.report.power import too_few_cell
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index


@dataclass(frozen=True)
class Measure:
    """One column of the scorecard: a score that decides a verdict, and which way is good."""

    title: str
    probe: str
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
    return round(cells["original"][0] - cells[column][0], 2)


# The reference numbers come from paper.py, where each table is typed once.
SCORECARD = [
    Measure("Accuracy", "original", "accuracy", "%", "higher", _ROBERTA["alpha1"], "Table 1 (alpha1)"),
    Measure(
        "Gain over the hypothesis-only baseline",
        "original",
        "accuracy_gain_over_baseline",
        "points",
        "higher",
        round(_ROBERTA["alpha1"] - _HYPOTHESIS_ONLY["alpha1"], 2),
        "Table 1: RoBERTa-large minus the hypothesis-only model (alpha1), not paired",
    ),
    Measure("Drop with the table removed", "hypothesis_only", "accuracy_drop", "points", "higher"),
    Measure(
        "Stays put when its relevant rows are deleted",
        "relevant_row_deletion",
        "unchanged_where_required_pct",
        "%",
        "lower",
    ),
    Measure(
        "Decided by wrong or no rows",
        "evidence_selection",
        "uses_wrong_or_no_rows_pct",
        "%",
        "lower",
        paper.EVIDENCE_SELECTION[("uses_wrong_or_no_rows_pct", "all")],
        "section 5.3",
    ),
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


# The same questions on TabFact (report/tabfact_verdicts.py): its probes, each on the first of its
# splits measured (the test set's simple statements first; the program probes on bootstrap). No
# paper prints these for RoBERTa-large.
TABFACT_SCORECARD = [
    Measure("TabFact: accuracy", "tf_original", "accuracy", "%", "higher"),
    Measure(
        "TabFact: gain over the hypothesis-only baseline",
        "tf_original",
        "accuracy_gain_over_baseline",
        "points",
        "higher",
    ),
    Measure("TabFact: NEUTRAL answers, read as REFUTED", "tf_original", "neutral_answers_pct", "%", "lower"),
    Measure("TabFact: drop with the table removed", "tf_hypothesis_only", "accuracy_drop", "points", "higher"),
    Measure("TabFact: drop with another table", "tf_swapped_table", "accuracy_drop", "points", "higher"),
    Measure(
        "TabFact: drop when records its program read are deleted",
        "relevant_record_deletion",
        "accuracy_drop",
        "points",
        "lower",
    ),
    Measure(
        "TabFact: drop when a cell its program read changes", "program_cell_update", "accuracy_drop", "points", "lower"
    ),
    Measure(
        "TabFact: drop when records its program never read are deleted",
        "irrelevant_record_deletion",
        "accuracy_drop",
        "points",
        "lower",
    ),
    Measure("TabFact: drop on negated statements", "tf_negation", "accuracy_drop", "points", "lower"),
    Measure("TabFact: drop on statements with a number changed", "tf_number_flip", "accuracy_drop", "points", "lower"),
    Measure(
        "TabFact: drop on statements with an entity replaced", "tf_entity_flip", "accuracy_drop", "points", "lower"
    ),
    Measure(
        "TabFact: drop with an entity renamed in table and statement",
        "tf_entity_rename",
        "accuracy_drop",
        "points",
        "lower",
    ),
]


def scorecard_cell(results: Index, model: str, measure: Measure) -> tuple[str, dict] | None:
    """(split, score) of a measure for a model, on the first split where it has an interval."""
    return results.first(model, measure.probe, measure.statistic, needs_interval=True)


def shown_cell(results: Index, model: str, measure: Measure) -> tuple[str, dict] | None:
    """What the scorecard's table shows of a measure: its cell, else the note that its probe held too
    few examples (report.power), which decides nothing and is drawn in no figure."""
    return scorecard_cell(results, model, measure) or too_few_cell(results, model, measure.probe, measure.statistic)
