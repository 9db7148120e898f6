"""The vocabulary of verdicts (tabprobe.report.verdicts): the thresholds and the rules as the report
prints them, the answers, the four questions, the records a verdict is made of (Number, Finding,
Verdict, ModelFacts), and how a score's 95% interval reads (`effect`, `against`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# An effect on accuracy smaller than this many points is too small to call use (the premise
# controls, the gain over the baseline) or reliance (artifacts, memorised knowledge).
NEGLIGIBLE_POINTS = 3.0
# Relevant rows deleted: most predictions staying put where the rule demands a move means the
# model does not rest on those rows; evidence selection: most examples decided by wrong or no rows.
MAJORITY_PCT = 50.0
# An irrelevant row deleted: more invalid moves than this says the model rests on rows that do
# not matter (the paper's RoBERTa-large: 4-7%).
IRRELEVANT_MOVES_PCT = 10.0
# A caveat when at least this share of a model's premises were cut at its max_length.
TRUNCATION_CAVEAT_PCT = 10.0

YES, NO, CANNOT_TELL, NOT_MEASURED, DOES_NOT_APPLY = "yes", "no", "cannot tell", "not measured", "does not apply"


def rules(chance_pct: float) -> list[str]:
    """The rules as the report prints them, given the paper dataset's chance accuracy (its
    DatasetPlan.chance_pct)."""
    return [
        f"An effect on accuracy is read from its 95% interval [low, high]: no effect worth the name when high < "
        f"{NEGLIGIBLE_POINTS:g} points; a clear effect when low > 0 and high ≥ {NEGLIGIBLE_POINTS:g}; a clear rise (the "
        f"perturbed examples are easier for it) when high < 0 and low ≤ -{NEGLIGIBLE_POINTS:g}, which counts as no drop "
        "but is never shown as no effect; otherwise the interval allows both. A share (%) is above or below a threshold "
        "only when its whole interval is.",
        "Uses its table: first, does its table help it? Removing the table lowers accuracy, and it beats the "
        "hypothesis-only baseline on the same examples: yes when one shows a clear effect and none shows none; no "
        "when they show no effect; cannot tell when they disagree or allow both. A wrong table (dummy, another "
        "table) lowering accuracy shows that it reads its table, not that it reasons from it: those two decide "
        "only where the first two were not measured (yes on a clear drop, no on none). A model that sees the "
        "hypothesis only cannot use its table.",
        f"Uses the right rows (asked only of a model that may use its table). Each of three numbers can say no: most "
        f"predictions (> {MAJORITY_PCT:g}%) stay put after the rows the hypothesis needs are deleted; most examples are "
        f"decided by wrong or no rows (evidence selection); deleting an irrelevant row moves more than "
        f"{IRRELEVANT_MOVES_PCT:g}% of predictions the wrong way. The first two say yes when below {MAJORITY_PCT:g}%. No "
        "when some say no and none says yes; yes when fewer than half stay put after the needed rows are deleted and "
        "none says no; cannot tell otherwise. Few moves after an irrelevant row is deleted is never counted for a model: a "
        "model that ignores its table does not move either.",
        "Leans on hypothesis artifacts: yes when label-flipping hypothesis edits clearly lower accuracy and by more "
        "than label-preserving ones (the intervals do not overlap); no when the flipping edits show no effect and hold "
        "both directions (E→C and C→E: on E→C alone a model that answers CONTRADICT to every edit loses nothing "
        "either); cannot tell otherwise, a clear rise included (it follows cues in the edited wording).",
        "Leans on pre-trained knowledge: yes when counterfactual tables that keep the label clearly lower accuracy "
        "(paper Table 7); no when they show no effect; cannot tell otherwise. For a model that does not use its table "
        "the question does not apply: it answers from the hypothesis and pre-training throughout.",
        f"Caveats change the reading and are stated with each verdict: an untrained classification head, or accuracy "
        f"on the unperturbed split at chance (its interval's high end under {chance_pct:.1f}% + {NEGLIGIBLE_POINTS:g} "
        f"points; the numbers then say nothing: every yes or no becomes cannot tell), {TRUNCATION_CAVEAT_PCT:g}% or more of "
        "the premises "
        "cut at max_length (edits past the cut are invisible and keep predictions in place), and relevant rows found "
        "by the aligner rather than by people.",
    ]


@dataclass(frozen=True)
class Number:
    """One score a verdict rests on, with what it says."""

    what: str  # "table removed (`<the probe>`): accuracy drop": the probe's role reading, and its name
    split: str
    score: Mapping  # a results row: mean, std, ci_low, ci_high, n, paper
    unit: str  # "points" or "%"
    reading: str  # what this value says, in words
    signal: str | None = None  # the answer it supports (YES / NO), or None: shown, not counted

    def text(self) -> str:
        s = self.score
        sign = "+" if self.unit == "points" else ""
        return (
            f"{self.what} on {self.split}: {s['mean']:{sign}.1f} [{s['ci_low']:{sign}.1f}, {s['ci_high']:{sign}.1f}]"
            f"{' points' if self.unit == 'points' else '%'}, n={s['n']}: {self.reading}"
        )


@dataclass
class Finding:
    question: str
    answer: str  # YES, NO, CANNOT_TELL, NOT_MEASURED or DOES_NOT_APPLY
    sentence: str
    numbers: list[Number] = field(default_factory=list)


@dataclass
class Verdict:
    model: str
    headline: str
    findings: list[Finding]
    caveats: list[str]
    # Why none of its numbers can be read as reasoning: "untrained" (a new head) or "at chance".
    unreadable: str | None = None

    def finding(self, question: str) -> Finding:
        return next(f for f in self.findings if f.question == question)


USES_TABLE = "Does it use its table at all?"
RIGHT_ROWS = "Does it use the right rows?"
ARTIFACTS = "Does it lean on hypothesis artifacts?"
KNOWLEDGE = "Does it lean on what it memorised in pre-training?"


@dataclass(frozen=True)
class ModelFacts:
    """What a verdict needs to know about a model beyond its scores."""

    premise: str  # its premise rendering; data.table_type.HYPOTHESIS_ONLY for the baseline
    trained: bool | None = True  # False: an untrained classification head
    truncated_pct: float = 0.0  # share of its premises cut at max_length
    max_length: int | None = None
    relevance_source: str | None = None  # "annotations" or "aligner"
    premise_selection: str | None = None  # the rule that chose the rows its premise holds (None: all of them)


def effect(score: Mapping) -> str:
    """'none', 'clear', 'rise' or 'unclear' for a drop in points, from its interval. A rise (the
    whole interval below 0, reaching NEGLIGIBLE_POINTS) is no drop either, but it is not "no
    effect": the perturbed examples are clearly easier for the model than the originals."""
    if score["ci_high"] < 0 and score["ci_low"] <= -NEGLIGIBLE_POINTS:
        return "rise"
    if score["ci_high"] < NEGLIGIBLE_POINTS:
        return "none"
    return "clear" if score["ci_low"] > 0 else "unclear"


# How a drop in points reads, by `effect`: shown beside a finding, not counted in a vote.
DROP_READINGS = {
    "none": ("no effect", None),
    "clear": ("a clear drop", None),
    "rise": ("a clear rise: these examples are easier for it", None),
    "unclear": ("the interval allows both", None),
}


def against(score: Mapping, threshold: float) -> str:
    """'above', 'below' or 'unclear': where a share's interval lies against a threshold."""
    if score["ci_low"] > threshold:
        return "above"
    return "below" if score["ci_high"] < threshold else "unclear"
