"""Verdicts: what a run's numbers say about each model, in words a reviewer would accept.

Four questions, each answered from a few scores of the results table and their 95% bootstrap
intervals, never from a mean alone:

1. Does the model use its table at all? Premise controls (the table removed, replaced by a
   dummy, or swapped for another) and its paired gain over the hypothesis-only baseline.
2. Does it use the right rows? Deleting the rows a hypothesis needs must move its prediction;
   its own evidence (the rows whose deletion alone moves it) should be those rows.
3. Does it lean on hypothesis artifacts? Hypothesis edits that flip the label hurt it clearly
   more than edits that keep it (paper section 4, Table 4).
4. Does it lean on what it memorised in pre-training? Counterfactual tables with the label
   kept hurt it (paper section 6, Table 7).

The rules (RULES below, printed in the report) read each number as one of three: a clear
effect, no effect worth the name, or an interval that allows both, which makes the answer
"cannot tell". Signals that disagree also give "cannot tell". A low invalid-transition share is
never read as good on its own: a model that ignores its table never moves and scores zero.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from . import paper
from .results import Index

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
# InfoTabS's splits hold the three labels in equal shares: a model whose whole accuracy interval on
# the unperturbed split lies below this plus NEGLIGIBLE_POINTS has not learned the task (a training
# that collapsed to one label, say), and none of its other numbers can be read as reasoning. (A
# wide interval that reaches chance from above, on a small slice, is not enough to say so.)
CHANCE_PCT = 100.0 / 3

YES, NO, CANNOT_TELL, NOT_MEASURED, DOES_NOT_APPLY = "yes", "no", "cannot tell", "not measured", "does not apply"

RULES = [
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
    f"on the unperturbed split at chance (its interval's high end under {CHANCE_PCT:.1f}% + {NEGLIGIBLE_POINTS:g} "
    f"points; the numbers then say nothing: every yes or no becomes cannot tell), {TRUNCATION_CAVEAT_PCT:g}% or more of "
    "the premises "
    "cut at max_length (edits past the cut are invisible and keep predictions in place), and relevant rows found "
    "by the aligner rather than by people.",
]


@dataclass(frozen=True)
class Number:
    """One score a verdict rests on, with what it says."""

    what: str  # "table removed (`hypothesis_only`): accuracy drop"
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

    premise: str  # its premise rendering; "hypothesis_only" for the baseline
    trained: bool | None = True  # False: an untrained classification head
    truncated_pct: float = 0.0  # share of its premises cut at max_length
    max_length: int | None = None
    relevance_source: str | None = None  # "annotations" or "aligner"


def facts_of(models: Mapping[str, Mapping], relevance: Mapping[str, Mapping]) -> dict[str, ModelFacts]:
    """Each model's facts from what run.json records of it (`results.model_facts`) and of the
    relevance source per split."""
    aligner = any(r.get("source") == "aligner" for r in relevance.values())
    facts = {}
    for model, info in models.items():
        meta = info.get("meta") or {}
        facts[model] = ModelFacts(
            premise=info["premise"],
            trained=meta.get("trained", True) if meta else None,
            truncated_pct=100.0 * info.get("truncated", 0) / max(info.get("examples", 0), 1),
            max_length=info.get("max_length"),
            relevance_source="aligner" if aligner else None,
        )
    return facts


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


PREMISE_CONTROLS = (
    ("hypothesis_only", "table removed"),
    ("dummy_premise", "dummy table"),
    ("swapped_table", "another table"),
)


def _read(
    results: Index,
    model: str,
    probe: str,
    statistic: str,
    what: str,
    unit: str,
    judge: Callable[[Mapping], str],
    readings: Mapping[str, tuple[str, str | None]],
) -> Number | None:
    """The score on the first split where it has an interval, as a Number: `judge` (effect, or a
    side of a threshold) picks its reading and the answer it supports; None where it was not measured."""
    found = results.first(model, probe, statistic, needs_interval=True)
    if not found:
        return None
    split, score = found
    return Number(what, split, score, unit, *readings[judge(score)])


def _uses_table(results: Index, model: str) -> tuple[list[Number], list[Number]]:
    """The numbers that say whether its table helps it (table removed, gain over the baseline),
    and those that say whether a wrong table disturbs it (dummy table, another table)."""
    control = {
        "none": (f"no effect (under {NEGLIGIBLE_POINTS:g} points)", NO),
        "rise": ("a clear rise: it does better without it", NO),
        "clear": ("a clear drop", YES),
        "unclear": ("the interval allows both", None),
    }
    numbers = {
        probe: _read(
            results, model, probe, "accuracy_drop", f"{what} (`{probe}`): accuracy drop", "points", effect, control
        )
        for probe, what in PREMISE_CONTROLS
    }
    helps = [
        numbers["hypothesis_only"],
        _read(
            results,
            model,
            "original",
            "accuracy_gain_over_baseline",
            "accuracy over the hypothesis-only baseline (paired)",
            "points",
            effect,
            {
                "none": ("no better than the hypothesis alone", NO),
                "rise": ("clearly worse than the hypothesis alone", NO),
                "clear": ("clearly better", YES),
                "unclear": ("the interval allows both", None),
            },
        ),
    ]
    disturbs = [numbers[probe] for probe, _ in PREMISE_CONTROLS if probe != "hypothesis_only"]
    return [n for n in helps if n], [n for n in disturbs if n]


def _stays_put(results: Index, model: str) -> Number | None:
    return _read(
        results,
        model,
        "relevant_row_deletion",
        "unchanged_where_required_pct",
        "relevant rows deleted: predictions that stayed put where they must move",
        "%",
        lambda score: against(score, MAJORITY_PCT),
        {
            "above": ("most predictions ignore the deletion of the rows they need", NO),
            "below": ("most predictions move as they must", YES),
            "unclear": ("the interval straddles half", None),
        },
    )


def _right_rows(results: Index, model: str, stays: Number | None) -> list[Number]:
    """`stays`: _stays_put's number, read once by the verdict."""
    few_moves = ("few moves; a model that ignores its table does not move either", None)
    numbers = [
        stays,
        _read(
            results,
            model,
            "evidence_selection",
            "uses_wrong_or_no_rows_pct",
            "its own evidence: examples decided by wrong or no rows",
            "%",
            lambda score: against(score, MAJORITY_PCT),
            {
                "above": ("most examples are decided by wrong or no rows", NO),
                "below": ("most examples rest on relevant rows", YES),
                "unclear": ("the interval straddles half", None),
            },
        ),
        _read(
            results,
            model,
            "irrelevant_row_deletion",
            "invalid_transition_pct",
            "an irrelevant row deleted: invalid transitions",
            "%",
            lambda score: against(score, IRRELEVANT_MOVES_PCT),
            {"above": ("deleting a row that does not matter moves it", NO), "below": few_moves, "unclear": few_moves},
        ),
    ]
    return [n for n in numbers if n]


def _vote(numbers: Sequence[Number]) -> str:
    signals = {n.signal for n in numbers if n.signal}
    if not numbers:
        return NOT_MEASURED
    if signals == {YES}:
        return YES
    if signals == {NO}:
        return NO
    return CANNOT_TELL


def _artifacts(results: Index, model: str) -> Finding:
    flipped = results.first(model, "table4:label_flipped", "accuracy_drop", needs_interval=True)
    if not flipped:
        return Finding(ARTIFACTS, NOT_MEASURED, "Not measured: no label-flipping hypothesis edits in this run.")
    split, f = flipped
    preserved = results.get(
        model=model, probe="table4:label_preserved", split=split, statistic="accuracy_drop", label="all"
    )
    numbers = [
        Number(
            "label-flipping hypothesis edits (Table 4): accuracy drop", split, f, "points", *DROP_READINGS[effect(f)]
        )
    ]
    has_preserved = preserved is not None and preserved["ci_low"] is not None
    if has_preserved:
        numbers.append(
            Number(
                "label-preserving hypothesis edits (Table 4): accuracy drop",
                split,
                preserved,
                "points",
                *DROP_READINGS[effect(preserved)],
            )
        )
    if effect(f) == "none":
        side = one_sided_flips(results, model, split)
        if side:
            # On E->C edits alone, answering CONTRADICT to every edit keeps the accuracy: no drop
            # cannot tell a model that reads its table from one that follows the edit's cue.
            return Finding(
                ARTIFACTS,
                CANNOT_TELL,
                f"Cannot tell: the label-flipping edits are {side.replace('->', '→')} only (the other direction is "
                "left out until a person checks it), and on those a model that answers CONTRADICT to every edit "
                "loses nothing either.",
                numbers,
            )
        return Finding(ARTIFACTS, NO, "No sign of it: edits that flip the label do not lower its accuracy.", numbers)
    if effect(f) == "rise":
        # Not "no": a model that reads a negation as contradiction gains on negation flips. It
        # follows the wording, and a drop cannot show whether it keeps its old answers.
        return Finding(
            ARTIFACTS,
            CANNOT_TELL,
            "Cannot tell: edits that flip the label raise its accuracy, so it follows cues in the edited "
            "wording (a negation read as a contradiction, say); a drop test cannot show whether it keeps its "
            "old answers.",
            numbers,
        )
    if effect(f) == "clear" and (not has_preserved or f["ci_low"] > preserved["ci_high"]):
        return Finding(
            ARTIFACTS,
            YES,
            "Yes: when an edit flips the label it often keeps its old answer, and such edits "
            "hurt it clearly more than edits that keep the label.",
            numbers,
        )
    return Finding(
        ARTIFACTS,
        CANNOT_TELL,
        "Cannot tell: the edits that flip the label do not hurt it clearly more than those that keep it.",
        numbers,
    )


def one_sided_flips(results: Index, model: str, split: str, column: str = "table4:label_flipped") -> str | None:
    """ "E->C" where a label-flipped column holds one direction alone on `split` (None: both)."""
    found = [
        d
        for d in ("E->C", "C->E")
        if (row := results.get(model=model, probe=column, split=split, statistic="accuracy", label=d)) and row["n"]
    ]
    return found[0] if len(found) == 1 else None


def _knowledge(results: Index, model: str, uses_table: str) -> Finding:
    found = results.first(model, "table7:label_preserved", "accuracy_drop", needs_interval=True)
    if not found:
        if results.first(model, "table7:label_flipped", "accuracy", needs_interval=True):
            return Finding(
                KNOWLEDGE,
                NOT_MEASURED,
                "Not measured: the verdict reads counterfactual tables that keep the label (cf_row_swap, "
                "cf_title_swap), and this run has only label-flipping ones; see Tables 7 and 8 for them.",
            )
        return Finding(KNOWLEDGE, NOT_MEASURED, "Not measured: no counterfactual tables in this run.")
    split, d = found
    numbers = [
        Number(
            "counterfactual tables, label kept (Table 7): accuracy drop", split, d, "points", *DROP_READINGS[effect(d)]
        )
    ]
    if uses_table in (NO, DOES_NOT_APPLY):
        return Finding(
            KNOWLEDGE,
            DOES_NOT_APPLY,
            "Does not apply: without its table it answers from the hypothesis "
            "and pre-training throughout; the drop shown comes from the edited "
            "hypotheses.",
            numbers,
        )
    if effect(d) == "none":
        return Finding(
            KNOWLEDGE,
            NO,
            "No sign of it: tables whose facts no longer match the world do not lower its accuracy.",
            numbers,
        )
    if effect(d) == "clear":
        return Finding(
            KNOWLEDGE,
            YES,
            "Yes: when the table's facts no longer match the world its accuracy falls, "
            "as if it answered from what it memorised.",
            numbers,
        )
    if effect(d) == "rise":
        return Finding(
            KNOWLEDGE,
            CANNOT_TELL,
            "Cannot tell: counterfactual tables raise its accuracy rather than lower it.",
            numbers,
        )
    return Finding(KNOWLEDGE, CANNOT_TELL, "Cannot tell: the counterfactual drop's interval allows both.", numbers)


def verdict(results: Index, model: str, facts: ModelFacts) -> Verdict:
    """The verdict on one model from the results table (`results.collect`'s layout)."""
    caveats = []
    if facts.trained is False:
        caveats.append(
            "It has an untrained classification head: its numbers exercise the workflow but say nothing "
            "about reasoning."
        )
    at_chance = _at_chance(results, model)
    if at_chance:
        split, score = at_chance
        caveats.append(
            f"Its accuracy on {split} is {score['mean']:.1f}% [{score['ci_low']:.1f}, {score['ci_high']:.1f}], no "
            f"better than chance ({CHANCE_PCT:.1f}%): it has not learned the task (check its training: dev accuracy, "
            "loss), so its other numbers say nothing about reasoning."
        )
    if facts.truncated_pct >= TRUNCATION_CAVEAT_PCT and facts.premise != "hypothesis_only":
        caveats.append(
            f"{facts.truncated_pct:.0f}% of its premises were cut at {facts.max_length or 'max_length'} "
            "tokens: an edit to a row past the cut is invisible to it and keeps its prediction in place, "
            "which lowers invalid transitions and raises the share that stays put."
        )
    flips = results.first(model, "table4:label_flipped", "accuracy_drop", needs_interval=True)
    if flips and (side := one_sided_flips(results, model, flips[0])):
        caveats.append(
            f"Paper Table 4's label-flipped column holds {side.replace('->', '→')} edits only on {flips[0]} (the "
            "other direction waits for a person's check: `tabprobe curate`): a model that answers CONTRADICT to "
            "every edited hypothesis would look robust there, so its artifacts answer is never no."
        )
    if facts.relevance_source == "aligner":
        caveats.append(
            "Which rows a hypothesis needs comes from the aligner (word, number and date matches), not from "
            "people: where it errs, the relevant-row numbers mix in irrelevant rows."
        )

    if facts.premise == "hypothesis_only":
        uses = Finding(
            USES_TABLE,
            DOES_NOT_APPLY,
            "It cannot: it sees the hypothesis only. It is the baseline the other models must beat.",
        )
        rows = Finding(
            RIGHT_ROWS,
            DOES_NOT_APPLY,
            "It cannot: it never sees a row. Its zero invalid transitions "
            "under table edits are guaranteed by construction.",
        )
        headline = f"{model} cannot use its table: it sees the hypothesis only (the baseline)."
    else:
        helps, disturbs = _uses_table(results, model)
        table_numbers = helps + disturbs
        stays = _stays_put(results, model)
        answer = _vote(helps) if helps else _vote(disturbs)
        disturbed = answer == NO and any(n.signal == YES for n in disturbs)
        # Shown beside, not counted: the paper's RoBERTa-large, which clearly uses its table, leaves
        # three quarters of these predictions where they must move too (Table 6).
        shown = table_numbers + ([replace(stays, signal=None)] if stays else [])
        uses = Finding(
            USES_TABLE,
            answer,
            {
                YES: "Yes: taking its table away or changing it clearly changes its accuracy.",
                NO: "No, its table does not help it: it does as well without it, or no better than the hypothesis "
                "alone."
                + (
                    " A wrong table does lower its accuracy: it reads its table without reasoning from it."
                    if disturbed
                    else ""
                ),
                CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
                NOT_MEASURED: "Not measured: run the premise controls (hypothesis_only, dummy_premise, swapped_table) or "
                "add a hypothesis-only model.",
            }[answer],
            shown,
        )
        if answer == NO:
            rows = Finding(
                RIGHT_ROWS,
                NO,
                "No: its table does not help it, so its few invalid transitions under "
                "table edits come from not moving, not from reasoning.",
                [replace(n, signal=None) for n in _right_rows(results, model, stays)],
            )
        else:
            numbers = _right_rows(results, model, stays)
            vote = _vote(numbers)
            if vote == YES and (stays is None or stays.signal != YES):
                vote = CANNOT_TELL  # only deleting the needed rows tests that the model rests on them
            rows = Finding(
                RIGHT_ROWS,
                vote,
                {
                    YES: "Yes: deleting the rows a hypothesis needs moves its prediction, and its own evidence is mostly "
                    "those rows.",
                    NO: "Mostly not: its predictions rest on rows other than the ones the hypothesis needs.",
                    CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals straddle the threshold.",
                    NOT_MEASURED: "Not measured: run relevant_row_deletion or evidence_selection.",
                }[vote],
                numbers,
            )
        headline = {
            YES: {
                YES: f"{model} uses its table, and the right rows.",
                NO: f"{model} uses its table, but mostly not the rows the hypothesis needs.",
                CANNOT_TELL: f"{model} uses its table; whether it uses the right rows cannot be told.",
                NOT_MEASURED: f"{model} uses its table (which rows was not measured).",
            }[rows.answer],
            NO: f"{model} does not use its table.",
            CANNOT_TELL: f"Cannot tell whether {model} uses its table.",
            NOT_MEASURED: f"Whether {model} uses its table was not measured.",
        }[uses.answer]
    findings = [uses, rows, _artifacts(results, model), _knowledge(results, model, uses.answer)]
    unreadable = "untrained" if facts.trained is False else "at chance" if at_chance else None
    if unreadable:
        headline = {
            "untrained": f"{model} has an untrained head: its numbers say nothing about reasoning.",
            "at chance": f"{model} is at chance: it has not learned the task, so its numbers say nothing about reasoning.",
        }[unreadable]
        for finding in findings:
            if finding.answer in (YES, NO):
                finding.answer, finding.sentence = CANNOT_TELL, f"Cannot tell: the model is {unreadable}."
    return Verdict(model, headline, findings, caveats, unreadable)


def _at_chance(results: Index, model: str) -> tuple[str, dict] | None:
    """(split, accuracy) where the model's accuracy on the unperturbed split is no better than chance."""
    found = results.first(model, "original", "accuracy", needs_interval=True)
    if found and found[1]["ci_high"] < CHANCE_PCT + NEGLIGIBLE_POINTS:
        return found
    return None


def verdicts(results: Index, models: Mapping[str, ModelFacts]) -> dict[str, Verdict]:
    return {model: verdict(results, model, facts) for model, facts in models.items()}


# ---------------------------------------------------------------- the scorecard


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


def scorecard_cell(results: Index, model: str, measure: Measure) -> tuple[str, dict] | None:
    """(split, score) of a measure for a model, on the first split where it has an interval."""
    return results.first(model, measure.probe, measure.statistic, needs_interval=True)


def short_verdict(verdict: Verdict) -> str:
    """The verdict in a few words, for a table cell."""
    uses, rows = verdict.finding(USES_TABLE), verdict.finding(RIGHT_ROWS)
    if verdict.unreadable == "at chance":
        return "at chance: not learned"
    if uses.answer == DOES_NOT_APPLY:
        return "cannot use its table (baseline)"
    if uses.answer == YES:
        return {YES: "uses its table and the right rows", NO: "uses its table, not the right rows"}.get(
            rows.answer, "uses its table; rows: cannot tell"
        )
    return {NO: "does not use its table", CANNOT_TELL: "cannot tell"}.get(uses.answer, uses.answer)
