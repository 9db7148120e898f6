"""Each question of a verdict answered from the paper dataset's part of the report's plan (its rows
of the results table, and which of its probes gives which number, `Probe.verdict_role`): the numbers
that bear on it, what each says, and the answer they give together (tabprobe.report.verdicts puts the
answers together)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tabprobe.probes.base import NEEDED_ROWS, OTHER_ROWS, OWN_EVIDENCE, TABLE_REMOVED, WRONG_TABLE
from tabprobe.report.plan import DatasetPlan
from tabprobe.report.verdict_terms import (
    ARTIFACTS,
    CANNOT_TELL,
    DOES_NOT_APPLY,
    DROP_READINGS,
    IRRELEVANT_MOVES_PCT,
    KNOWLEDGE,
    MAJORITY_PCT,
    NEGLIGIBLE_POINTS,
    NO,
    NOT_MEASURED,
    RIGHT_ROWS,
    USES_TABLE,
    YES,
    Finding,
    Number,
    against,
    effect,
)
from tabprobe.scoring.results import Index

# How a premise control's accuracy drop reads (the table taken away or changed), and the paired gain
# over the hypothesis-only baseline: the answer each supports to "does it use its table?".
CONTROL_READINGS = {
    "none": (f"no effect (under {NEGLIGIBLE_POINTS:g} points)", NO),
    "rise": ("a clear rise: it does better without it", NO),
    "clear": ("a clear drop", YES),
    "unclear": ("the interval allows both", None),
}
GAIN_READINGS = {
    "none": ("no better than the hypothesis alone", NO),
    "rise": ("clearly worse than the hypothesis alone", NO),
    "clear": ("clearly better", YES),
    "unclear": ("the interval allows both", None),
}


def premise_controls(plan: DatasetPlan) -> list[str]:
    """The part's premise controls, as the verdicts read them: the table removed first, then the
    wrong tables (`Probe.verdict_role`)."""
    return plan.role(TABLE_REMOVED) + plan.role(WRONG_TABLE)


def _one(plan: DatasetPlan, number: str) -> str | None:
    """The part's probe that gives verdict number `number`, if one is registered."""
    found = plan.role(number)
    return found[0] if found else None


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


def _uses_table(plan: DatasetPlan, model: str) -> tuple[list[Number], list[Number]]:
    """The numbers that say whether its table helps it (table removed, gain over the baseline),
    and those that say whether a wrong table disturbs it (dummy table, another table)."""
    numbers = {
        probe: _read(
            plan.scores,
            model,
            probe,
            "accuracy_drop",
            f"{plan.role_of(probe).reading} (`{probe}`): accuracy drop",
            "points",
            effect,
            CONTROL_READINGS,
        )
        for probe in premise_controls(plan)
    }
    removed = plan.role(TABLE_REMOVED)
    helps = [
        *(numbers[p] for p in removed),
        _read(
            plan.scores,
            model,
            plan.baseline,
            "accuracy_gain_over_baseline",
            "accuracy over the hypothesis-only baseline (paired)",
            "points",
            effect,
            GAIN_READINGS,
        ),
    ]
    disturbs = [numbers[probe] for probe in premise_controls(plan) if probe not in removed]
    return [n for n in helps if n], [n for n in disturbs if n]


def _stays_put(plan: DatasetPlan, model: str) -> Number | None:
    needed = _one(plan, NEEDED_ROWS)
    if not needed:
        return None
    return _read(
        plan.scores,
        model,
        needed,
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


def _right_rows(plan: DatasetPlan, model: str, stays: Number | None, selection: str | None = None) -> list[Number]:
    """`stays`: _stays_put's number, read once by `_uses_table_finding`. `selection`: the premise
    selection rule that chose the rows the model reads (None: all of them): a row left out of its premise
    cannot move it, so the numbers about rows it may never have been shown (its own evidence, an
    irrelevant row deleted) are shown, not counted."""
    few_moves = ("few moves; a model that ignores its table does not move either", None)
    evidence, other = _one(plan, OWN_EVIDENCE), _one(plan, OTHER_ROWS)
    shaped = [
        _read(
            plan.scores,
            model,
            evidence,
            "uses_wrong_or_no_rows_pct",
            "its own evidence: examples decided by wrong or no rows",
            "%",
            lambda score: against(score, MAJORITY_PCT),
            {
                "above": ("most examples are decided by wrong or no rows", NO),
                "below": ("most examples rest on relevant rows", YES),
                "unclear": ("the interval straddles half", None),
            },
        )
        if evidence
        else None,
        _read(
            plan.scores,
            model,
            other,
            "invalid_transition_pct",
            "an irrelevant row deleted: invalid transitions",
            "%",
            lambda score: against(score, IRRELEVANT_MOVES_PCT),
            {"above": ("deleting a row that does not matter moves it", NO), "below": few_moves, "unclear": few_moves},
        )
        if other
        else None,
    ]
    if selection:
        shaped = [
            replace(n, signal=None, reading=f"{n.reading}; shown, not counted: the premise selection shapes it")
            for n in shaped
            if n
        ]
    return [n for n in (stays, *shaped) if n]


def vote(numbers: Sequence[Number]) -> str:
    signals = {n.signal for n in numbers if n.signal}
    if not numbers:
        return NOT_MEASURED
    if signals == {YES}:
        return YES
    if signals == {NO}:
        return NO
    return CANNOT_TELL


def artifacts_finding(results: Index, model: str) -> Finding:
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


def knowledge_finding(plan: DatasetPlan, model: str, uses_table: str) -> Finding:
    results = plan.scores
    found = results.first(model, "table7:label_preserved", "accuracy_drop", needs_interval=True)
    if not found:
        if results.first(model, "table7:label_flipped", "accuracy", needs_interval=True):
            return Finding(
                KNOWLEDGE,
                NOT_MEASURED,
                "Not measured: the verdict reads counterfactual tables that keep the label "
                f"({', '.join(plan.registered_pooled('table7')['label_preserved'])}), and this run "
                "has only label-flipping ones; see Tables 7 and 8 for them.",
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


def baseline_findings() -> tuple[Finding, Finding]:
    """The first two questions for the hypothesis-only baseline, which never sees a table."""
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
    return uses, rows


def table_findings(plan: DatasetPlan, model: str, selection: str | None = None) -> tuple[Finding, Finding]:
    """The first two questions for a model that sees its table: does it use it, and the right rows.
    `selection`: the premise selection rule that chose the rows its premise holds (None: every row)."""
    uses, stays = _uses_table_finding(plan, model)
    return uses, _right_rows_finding(plan, model, uses.answer, stays, selection)


def _uses_table_finding(plan: DatasetPlan, model: str) -> tuple[Finding, Number | None]:
    """Whether it uses its table, and `_stays_put`'s number, read once: shown here, counted for the rows."""
    helps, disturbs = _uses_table(plan, model)
    table_numbers = helps + disturbs
    stays = _stays_put(plan, model)
    answer = vote(helps) if helps else vote(disturbs)
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
            NOT_MEASURED: f"Not measured: run the premise controls ({', '.join(premise_controls(plan))}) or "
            "add a hypothesis-only model.",
        }[answer],
        shown,
    )
    return uses, stays


def _right_rows_finding(
    plan: DatasetPlan, model: str, answer: str, stays: Number | None, selection: str | None = None
) -> Finding:
    """Whether it uses the right rows, given `answer` to whether it uses its table; where `selection`
    chose the rows its premise holds, whether it uses the rows it was given."""
    if answer == NO:
        return Finding(
            RIGHT_ROWS,
            NO,
            "No: its table does not help it, so its few invalid transitions under "
            "table edits come from not moving, not from reasoning.",
            [replace(n, signal=None) for n in _right_rows(plan, model, stays, selection)],
        )
    numbers = _right_rows(plan, model, stays, selection)
    answer = vote(numbers)
    if answer == YES and (stays is None or stays.signal != YES):
        answer = CANNOT_TELL  # only deleting the needed rows tests that the model rests on them
    sentences = SELECTED_ROWS_SENTENCES if selection else RIGHT_ROWS_SENTENCES
    sentence = sentences[answer].format(
        rule=selection, needed=_one(plan, NEEDED_ROWS), evidence=_one(plan, OWN_EVIDENCE)
    )
    return Finding(RIGHT_ROWS, answer, sentence, numbers)


RIGHT_ROWS_SENTENCES = {
    YES: "Yes: deleting the rows a hypothesis needs moves its prediction, and its own evidence is mostly those rows.",
    NO: "Mostly not: its predictions rest on rows other than the ones the hypothesis needs.",
    CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals straddle the threshold.",
    NOT_MEASURED: "Not measured: run {needed} or {evidence}.",
}
# Where the pipeline chose the rows (premise selection), the question is whether the model used them.
SELECTED_ROWS_SENTENCES = {
    YES: "Yes, of the rows it was given: the pipeline chose them (premise selection `{rule}`), and deleting the "
    "rows a hypothesis needs moves its prediction: the model used them.",
    NO: "Mostly not, even of the rows the pipeline chose for it (premise selection `{rule}`): deleting the rows a "
    "hypothesis needs leaves its prediction where it was.",
    CANNOT_TELL: "Cannot tell whether it uses the rows the pipeline chose for it (premise selection `{rule}`): the "
    "numbers below disagree, or their intervals straddle the threshold.",
    NOT_MEASURED: "Not measured: run {needed} (the pipeline chose its rows: premise selection `{rule}`).",
}
