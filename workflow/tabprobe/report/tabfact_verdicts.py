"""The four verdict questions (tabprobe.report.verdicts) answered from TabFact's probes, with the same
terms and thresholds (verdict_terms) and the probe that decides each named in its numbers:

1. Uses its table: the table removed (`tf_hypothesis_only`) and its gain over a hypothesis-only
   model's accuracy on `tf_original`; another table (`tf_swapped_table`) decides only where those
   were not measured.
2. Right records: records the statement's program read deleted (`relevant_record_deletion`) or one
   of their cells changed (`program_cell_update`), labels recomputed by executing the program, must
   not lower its accuracy; deleting records the program never read (`irrelevant_record_deletion`)
   must not either.
3. Hypothesis artifacts: statement edits that flip the label (`tf_negation`, `tf_number_flip`,
   `tf_entity_flip`); for the hypothesis-only model, its accuracy over the majority class.
4. Memorised knowledge: entities renamed consistently in table and statement (`tf_entity_rename`).

TabFact has two labels, so "chance" is the majority class of the statements scored (from the n of
each label), not a third.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tabprobe.report import verdict_terms as terms
from tabprobe.report.power import left_out_caveat
from tabprobe.report.scorecard import TABFACT_SCORECARD
from tabprobe.report.verdict_questions import (
    CONTROL_READINGS,
    GAIN_READINGS,
    baseline_findings,
    one_sided_flips,
    vote,
)
from tabprobe.report.verdict_terms import (
    CANNOT_TELL,
    DOES_NOT_APPLY,
    DROP_READINGS,
    NEGLIGIBLE_POINTS,
    NO,
    NOT_MEASURED,
    YES,
    Finding,
    ModelFacts,
    Number,
    Verdict,
    effect,
)
from tabprobe.report.verdicts import (
    UNTRAINED_CAVEAT,
    headline_of,
    selection_caveat,
    truncation_caveat,
    unreadable_headline,
)
from tabprobe.scoring.results import Index

# Which split decides, first where measured: on simple statements (one record looked up) a model that
# reads its table has the most accuracy to lose; on complex ones a model near chance cannot drop far,
# so no drop there says little. The program probes are measured on bootstrap only.
VERDICT_SPLITS = ("simple_test", "complex_test", "bootstrap")
FLIP_PROBES = ("tf_negation", "tf_number_flip", "tf_entity_flip")
# A drop test sees a model that ignores the records only where it has accuracy to lose: about half
# the labels change when a record the program read is deleted, so keeping every answer costs
# about half its lead over the majority class. Its interval's low end must lead by this much
# (twice NEGLIGIBLE_POINTS) for "no drop" to say that it follows the records.
SENSITIVE_LEAD_POINTS = 2 * NEGLIGIBLE_POINTS
# Every probe a TabFact verdict reads: those a model holds too few examples of are named in its caveats.
DECIDING_PROBES = tuple(dict.fromkeys([m.probe for m in TABFACT_SCORECARD] + ["program_record_deletion", *FLIP_PROBES]))

TABFACT_RULES = [
    "The TabFact verdicts read TabFact's probes with the same thresholds as the InfoTabS ones (rule 1 under the scorecard), each on "
    f"the first split measured of {', '.join(VERDICT_SPLITS)}: on simple statements a model that reads its table "
    "has the most accuracy to lose.",
    "Uses its table: the table removed (`tf_hypothesis_only`) and the gain over the hypothesis-only model trained "
    "on the same data (paired where the run scored it; otherwise the two accuracies on `tf_original`, counted only "
    "when their intervals do not overlap); another table (`tf_swapped_table`) decides only where those were not "
    "measured.",
    "Uses the right records: a clear accuracy drop when records the statement's program read are deleted "
    "(`relevant_record_deletion`) or one of their cells changed (`program_cell_update`), labels recomputed by "
    "executing the program, says no, and so does one when records it never read are deleted "
    "(`irrelevant_record_deletion`); no drop on the first says yes only where its accuracy on the unperturbed "
    f"statements leads the majority class by {SENSITIVE_LEAD_POINTS:g} points or more (a model that keeps every "
    "answer loses about half its lead). `program_record_deletion` (any record) is shown, not counted.",
    "Leans on hypothesis artifacts: the label-flipping statement edits (`tf_negation`, `tf_number_flip`, "
    "`tf_entity_flip`) read as the InfoTabS ones (a clear drop: yes; none, in both directions: no); the "
    "hypothesis-only model leans on them when its accuracy is clearly over the majority class.",
    "Leans on memorised knowledge: entities renamed consistently in table and statement (`tf_entity_rename`, "
    "the label kept) read as the counterfactual tables (a clear drop: yes; none: no).",
    "Chance on TabFact is the majority class of the statements scored; an InfoTabS model's NEUTRAL answers are "
    "read as REFUTED and their share is stated with its verdict.",
]


def first_measured(
    scores: Index,
    model: str,
    probe: str,
    statistic: str,
    label: str = "all",
    splits: Sequence[str] = VERDICT_SPLITS,
) -> tuple[str, dict] | None:
    """(split, score) on the first of `splits` where the cell has a mean and an interval."""
    for split in splits:
        score = scores.get(model, probe, split, statistic, label)
        if score and score["mean"] is not None and score["ci_low"] is not None:
            return split, score
    return None


def majority_pct(scores: Index, model: str, split: str) -> float | None:
    """The share (%) of the commoner label among the statements `tf_original` scored on `split`,
    from the n of each label's accuracy: the accuracy of always answering it."""
    counts = [
        row["n"] for lab in ("E", "C") if (row := scores.get(model, "tf_original", split, "accuracy", lab)) and row["n"]
    ]
    return 100.0 * max(counts) / sum(counts) if counts else None


def over_majority(scores: Index, model: str, split: str | None = None) -> tuple[str, dict, float] | None:
    """(split, its tf_original accuracy less the majority share, that share) on the first split
    measured; the majority share is a constant of the split, so the interval moves with the mean."""
    found = first_measured(scores, model, "tf_original", "accuracy", splits=(split,) if split else VERDICT_SPLITS)
    if not found or (majority := majority_pct(scores, model, found[0])) is None:
        return None
    split, score = found
    lead = {**score, **{k: score[k] - majority for k in ("mean", "ci_low", "ci_high")}}
    return split, lead, majority


def answers_one_label(scores: Index, model: str, split: str) -> bool:
    """Whether the model gave every unperturbed statement of `split` the same answer (all of one
    label right, all of the other wrong): a collapsed training, whatever the interval of its lead."""
    by_label = [scores.get(model, "tf_original", split, "accuracy", lab) for lab in ("E", "C")]
    means = sorted(cell["mean"] for cell in by_label if cell and cell["mean"] is not None)
    return means == [0.0, 100.0]


def _read(
    scores: Index,
    model: str,
    probe: str,
    what: str,
    readings: Mapping[str, tuple[str, str | None]],
    judge: Callable[[Mapping], str] = effect,
    splits: Sequence[str] = VERDICT_SPLITS,
) -> Number | None:
    found = first_measured(scores, model, probe, "accuracy_drop", splits=splits)
    if not found:
        return None
    return Number(f"{what} (`{probe}`): accuracy drop", found[0], found[1], "points", *readings[judge(found[1])])


def _gain(scores: Index, model: str, baseline: str | None) -> Number | None:
    """Its gain over the hypothesis-only model: paired where the run scored it, otherwise its own
    accuracy beside the baseline's, counted only when the two intervals do not overlap."""
    paired = first_measured(scores, model, "tf_original", "accuracy_gain_over_baseline")
    if paired:
        split, score = paired
        return Number(
            "accuracy over the hypothesis-only baseline (`tf_original`, paired)",
            split,
            score,
            "points",
            *GAIN_READINGS[effect(score)],
        )
    found = first_measured(scores, model, "tf_original", "accuracy")
    if not baseline or not found:
        return None
    split, score = found
    base = scores.get(baseline, "tf_original", split, "accuracy", "all")
    if not base or base["ci_low"] is None:
        return None
    beside = (
        f"{baseline}'s {base['mean']:.1f} [{base['ci_low']:.1f}, {base['ci_high']:.1f}] (n={base['n']}, not paired)"
    )
    if score["ci_low"] > base["ci_high"]:
        reading = (f"clearly above the hypothesis-only {beside}", YES)
    elif score["ci_high"] < base["ci_low"]:
        reading = (f"clearly below the hypothesis-only {beside}", NO)
    else:
        reading = (f"its interval overlaps the hypothesis-only {beside}: not counted", None)
    return Number("accuracy (`tf_original`), beside the hypothesis-only model", split, score, "%", *reading)


def uses_table_finding(scores: Index, model: str, baseline: str | None) -> Finding:
    helps = [
        n
        for n in (
            _read(scores, model, "tf_hypothesis_only", "table removed", CONTROL_READINGS),
            _gain(scores, model, baseline),
        )
        if n
    ]
    disturbs = [n for n in [_read(scores, model, "tf_swapped_table", "another table", CONTROL_READINGS)] if n]
    answer = vote(helps) if helps else vote(disturbs)
    sentence = {
        YES: "Yes: taking its table away or changing it clearly changes its accuracy.",
        NO: "No, its table does not help it: it does as well without it, or no better than the statement alone.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: "Not measured: run tf_hypothesis_only or tf_swapped_table, or add a hypothesis-only model.",
    }[answer]
    return Finding(terms.USES_TABLE, answer, sentence, helps + disturbs)


def _needed_records(scores: Index, model: str) -> list[Number]:
    """The records (or cells) the statement's program read, changed: a clear drop says it misses the
    change; no drop says it follows it only where it had accuracy to lose."""
    lead = over_majority(scores, model, "bootstrap")
    sensitive = lead is not None and lead[1]["ci_low"] >= SENSITIVE_LEAD_POINTS
    readings = {
        "clear": ("a clear drop: it keeps answers the edited table no longer supports", NO),
        "none": (
            ("no effect: it follows the records the statement needs", YES)
            if sensitive
            else ("no effect, but it leads the majority class too little for a drop to show", None)
        ),
        "rise": ("a clear rise: these examples are easier for it", None),
        "unclear": ("the interval allows both", None),
    }
    found = [
        _read(scores, model, probe, what, readings, splits=("bootstrap",))
        for probe, what in (
            ("relevant_record_deletion", "records the program read deleted"),
            ("program_cell_update", "a cell the program read changed"),
        )
    ]
    return [n for n in found if n]


def right_records_finding(scores: Index, model: str, uses: str) -> Finding:
    few_moves = ("little effect; a model that ignores its table does not move either", None)
    numbers = _needed_records(scores, model) + [
        n
        for n in (
            _read(
                scores,
                model,
                "irrelevant_record_deletion",
                "records the program never read deleted",
                {
                    "clear": ("deleting records that do not matter moves it", NO),
                    "none": few_moves,
                    "rise": few_moves,
                    "unclear": ("the interval allows both", None),
                },
                splits=("bootstrap",),
            ),
            _read(
                scores,
                model,
                "program_record_deletion",
                "any record deleted",
                {
                    k: (f"{v[0]}; shown, not counted: it mixes records read and not read", None)
                    for k, v in DROP_READINGS.items()
                },
                splits=("bootstrap",),
            ),
        )
        if n
    ]
    if uses == NO:
        return Finding(
            terms.RIGHT_ROWS,
            NO,
            "No: its table does not help it, so how it meets record edits comes from not moving, not from reasoning.",
            [replace(n, signal=None) for n in numbers],
        )
    answer = vote(numbers)
    if answer == YES and not any(n.signal == YES for n in numbers if "program read" in n.what):
        answer = CANNOT_TELL  # only changing the records it needs tests that it rests on them
    sentence = {
        YES: "Yes: when the records its statement needs change, it follows the label the program gives.",
        NO: "Mostly not: it misses changes to the records the statement needs, or moves when others change.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: "Not measured: run relevant_record_deletion or program_cell_update on bootstrap.",
    }[answer]
    return Finding(terms.RIGHT_ROWS, answer, sentence, numbers)


FLIP_READINGS = {
    "clear": ("a clear drop: when the wording flips the label it keeps its old answer", YES),
    "none": ("no effect", NO),
    "rise": ("a clear rise: it follows cues in the edited wording", None),
    "unclear": ("the interval allows both", None),
}


def artifacts_finding(scores: Index, model: str, facts: ModelFacts) -> Finding:
    numbers = []
    for probe in FLIP_PROBES:
        found = first_measured(scores, model, probe, "accuracy_drop")
        if found:
            split, score = found
            readings = dict(FLIP_READINGS)
            if side := one_sided_flips(scores, model, split, column=probe):
                # On E->C edits alone a model that answers REFUTED to every edit loses nothing either.
                readings["none"] = (f"no effect, on {side.replace('->', '→')} edits only: not counted", None)
            what = f"label-flipping statement edit (`{probe}`): accuracy drop"
            numbers.append(Number(what, split, score, "points", *readings[effect(score)]))
    if facts.premise == "hypothesis_only":
        numbers = [replace(n, signal=None) for n in numbers]  # it cannot keep an answer its table gave
        lead = over_majority(scores, model)
        if lead:
            split, score, majority = lead
            readings = {
                "clear": ("the statements alone carry cues to the label", YES),
                "none": ("no better than the majority class", NO),
                "rise": ("below the majority class", NO),
                "unclear": ("the interval allows both", None),
            }
            numbers.insert(
                0,
                Number(
                    f"accuracy over the majority class ({majority:.1f}%, `tf_original`)",
                    split,
                    score,
                    "points",
                    *readings[effect(score)],
                ),
            )
    answer = vote(numbers)
    sentence = {
        YES: "Yes: from the statement alone it beats the majority class."
        if facts.premise == "hypothesis_only"
        else "Yes: when an edit of the statement flips the label it often keeps its old answer.",
        NO: "No sign of it.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: "Not measured: no label-flipping statement edits in this run.",
    }[answer]
    return Finding(terms.ARTIFACTS, answer, sentence, numbers)


def knowledge_finding(scores: Index, model: str, uses: str) -> Finding:
    renamed = _read(scores, model, "tf_entity_rename", "entities renamed in table and statement", DROP_READINGS)
    if not renamed:
        return Finding(terms.KNOWLEDGE, NOT_MEASURED, "Not measured: run tf_entity_rename.")
    if uses in (NO, DOES_NOT_APPLY):
        return Finding(
            terms.KNOWLEDGE,
            DOES_NOT_APPLY,
            "Does not apply: without its table it answers from the statement and pre-training throughout.",
            [renamed],
        )
    answer = {"none": NO, "clear": YES}.get(effect(renamed.score), CANNOT_TELL)
    sentence = {
        NO: "No sign of it: renaming the entities consistently in table and statement does not lower its accuracy.",
        YES: "Yes: when the entities are renamed its accuracy falls, as if it answered from what it memorised of them.",
        CANNOT_TELL: "Cannot tell: the drop's interval allows both, or the renamed examples are easier for it.",
    }[answer]
    return Finding(terms.KNOWLEDGE, answer, sentence, [renamed])


def _caveats(scores: Index, model: str, facts: ModelFacts, at_chance: tuple[str, dict, float] | None) -> list[str]:
    caveats = [UNTRAINED_CAVEAT] if facts.trained is False else []
    if at_chance:
        split, lead, majority = at_chance
        caveats.append(
            f"Its accuracy on {split} leads the majority class ({majority:.1f}%) by {lead['mean']:+.1f} "
            f"[{lead['ci_low']:+.1f}, {lead['ci_high']:+.1f}] points: no better than answering the commoner label, "
            "so its other numbers say nothing about reasoning."
        )
    if truncation := truncation_caveat(facts):
        caveats.append(truncation)
    if selection := selection_caveat(facts):
        caveats.append(selection)
    neutral = first_measured(scores, model, "tf_original", "neutral_answers_pct")
    if neutral and neutral[1]["mean"]:
        split, share = neutral
        caveats.append(
            f"It answers with three labels: its NEUTRAL answers ({share['mean']:.1f}% "
            f"[{share['ci_low']:.1f}, {share['ci_high']:.1f}] of the statements on {split}) are read as REFUTED."
        )
    if too_few := left_out_caveat(scores, model, DECIDING_PROBES):
        caveats.append(too_few)
    return caveats


def tabfact_verdict(scores: Index, model: str, facts: ModelFacts, baseline: str | None) -> Verdict:
    """The verdict on one model from its TabFact rows; `baseline`: the hypothesis-only model its
    accuracy is set beside (trained on the same data), if any."""
    lead = over_majority(scores, model)
    # A hypothesis-only model at the majority class is the finding (the statements carry no cues), not
    # a failed training: TabFact's statements were written to leave none.
    at_chance = (
        lead
        if lead
        and (lead[1]["ci_high"] < NEGLIGIBLE_POINTS or answers_one_label(scores, model, lead[0]))
        and facts.premise != "hypothesis_only"
        else None
    )
    if facts.premise == "hypothesis_only":
        uses, rows = baseline_findings()
        headline = f"{model} cannot use its table: it sees the statement only (the baseline)."
    else:
        uses = uses_table_finding(scores, model, baseline)
        rows = right_records_finding(scores, model, uses.answer)
        headline = headline_of(model, uses, rows)
    findings = [uses, rows, artifacts_finding(scores, model, facts), knowledge_finding(scores, model, uses.answer)]
    unreadable = "untrained" if facts.trained is False else "at chance" if at_chance else None
    caveats = _caveats(scores, model, facts, at_chance)
    headline = unreadable_headline(model, findings, unreadable) or headline
    if unreadable == "at chance":  # an InfoTabS model may have learned its task and still not carry it over
        headline = (
            f"{model} does no better than the majority class on TabFact: its numbers here say nothing about reasoning."
        )
    return Verdict(model, headline, findings, caveats, unreadable)
