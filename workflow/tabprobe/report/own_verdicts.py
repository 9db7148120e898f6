"""The four verdict questions (tabprobe.report.verdicts) answered from the probes of a dataset
other than the paper's (its part of the report, report.own_part), with the same terms and
thresholds (verdict_terms) and the probe that decides each named in its numbers. Which probe
gives which number is the probe's declaration (`Probe.verdict_role`), read through the report's
plan:

1. Uses its table: the table removed (TABLE_REMOVED) and its gain over a hypothesis-only model's
   accuracy on the baseline probe; a wrong table (WRONG_TABLE) decides only where those were not
   measured.
2. Right rows: the rows (records, cells) the hypothesis needs deleted or changed (NEEDED_ROWS), its
   labels recomputed, must not lower its accuracy; deleting rows it does not need (OTHER_ROWS) must
   not either; any row deleted (ANY_ROWS) is shown, not counted.
3. Hypothesis artifacts: edits that flip the label (LABEL_FLIP); for the hypothesis-only model, its
   accuracy over the majority class.
4. Memorised knowledge: entities renamed consistently in table and hypothesis (RENAMED).

With two labels "chance" is the majority class of the statements scored (from the n of each
label), not a half; each verdict reads the first split measured of the dataset's verdict splits
(`ReportPart.verdict_splits`), a number of its own section's probes on that section's splits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.probes.base import (
    ANY_ROWS,
    LABEL_FLIP,
    NEEDED_ROWS,
    OTHER_ROWS,
    RENAMED,
    TABLE_REMOVED,
    VERDICT_ROLES,
    WRONG_TABLE,
)
from tabprobe.report import verdict_terms as terms
from tabprobe.report.plan import DatasetPlan
from tabprobe.report.power import left_out_caveat
from tabprobe.report.scorecard import own_scorecard
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
    premise_caveats,
    unreadable_headline,
)

# A drop test sees a model that ignores the records only where it has accuracy to lose: about half
# the labels change when a record the program read is deleted, so keeping every answer costs
# about half its lead over the majority class. Its interval's low end must lead by this much
# (twice NEGLIGIBLE_POINTS) for "no drop" to say that it follows the records.
SENSITIVE_LEAD_POINTS = 2 * NEGLIGIBLE_POINTS


def deciding_probes(plan: DatasetPlan) -> tuple[str, ...]:
    """Every probe a verdict of the dataset reads: its scorecard's, then every other that gives a
    verdict number. Those a model holds too few examples of are named in its caveats."""
    scorecard = [m.probe for m in own_scorecard(plan.catalog)]
    return tuple(dict.fromkeys(scorecard + [p for role in VERDICT_ROLES for p in plan.role(role)]))


def rules(plan: DatasetPlan) -> list[str]:
    """How the dataset's verdicts are decided, as its part prints them (`ReportPart.verdict_rules`)."""
    splits = ", ".join(plan.dataset.report.verdict_splits)
    return [rule.format(splits=splits, lead=f"{SENSITIVE_LEAD_POINTS:g}") for rule in plan.dataset.report.verdict_rules]


def section_splits(plan: DatasetPlan, probe: str) -> tuple[str, ...]:
    """The splits a probe's verdict number is read on: its own section's (`OwnSection.splits`),
    else the dataset's verdict splits."""
    name = plan.probe(probe).report_section
    own = next((s.splits for s in plan.dataset.report.sections if s.name == name and s.splits), None)
    return own or plan.dataset.report.verdict_splits


def _names(probes: Sequence[str]) -> str:
    return " or ".join(probes)


def first_measured(
    plan: DatasetPlan,
    model: str,
    probe: str,
    statistic: str,
    label: str = "all",
    splits: Sequence[str] | None = None,
) -> tuple[str, dict] | None:
    """(split, score) on the first of `splits` (the dataset's verdict splits) where the cell has a
    mean and an interval."""
    for split in plan.dataset.report.verdict_splits if splits is None else splits:
        score = plan.scores.get(model, probe, split, statistic, label)
        if score and score["mean"] is not None and score["ci_low"] is not None:
            return split, score
    return None


def majority_pct(plan: DatasetPlan, model: str, split: str) -> float | None:
    """The share (%) of the commoner label among the statements the baseline probe scored on
    `split`, from the n of each label's accuracy: the accuracy of always answering it."""
    counts = [
        row["n"]
        for lab in plan.dataset.labels
        if (row := plan.scores.get(model, plan.baseline, split, "accuracy", lab)) and row["n"]
    ]
    return 100.0 * max(counts) / sum(counts) if counts else None


def over_majority(plan: DatasetPlan, model: str, split: str | None = None) -> tuple[str, dict, float] | None:
    """(split, its baseline accuracy less the majority share, that share) on the first split
    measured; the majority share is a constant of the split, so the interval moves with the mean."""
    found = first_measured(plan, model, plan.baseline, "accuracy", splits=(split,) if split else None)
    if not found or (majority := majority_pct(plan, model, found[0])) is None:
        return None
    split, score = found
    lead = {**score, **{k: score[k] - majority for k in ("mean", "ci_low", "ci_high")}}
    return split, lead, majority


def answers_one_label(plan: DatasetPlan, model: str, split: str) -> bool:
    """Whether the model gave every unperturbed statement of `split` the same answer (all of one
    label right, all of the other wrong): a collapsed training, whatever the interval of its lead."""
    by_label = [plan.scores.get(model, plan.baseline, split, "accuracy", lab) for lab in plan.dataset.labels]
    means = sorted(cell["mean"] for cell in by_label if cell and cell["mean"] is not None)
    return means == [0.0, 100.0]


def _read(
    plan: DatasetPlan,
    model: str,
    probe: str,
    readings: Mapping[str, tuple[str, str | None]],
    judge: Callable[[Mapping], str] = effect,
) -> Number | None:
    """The probe's accuracy drop on the first of its splits measured, read as its role says."""
    found = first_measured(plan, model, probe, "accuracy_drop", splits=section_splits(plan, probe))
    if not found:
        return None
    what = plan.role_of(probe).reading
    return Number(f"{what} (`{probe}`): accuracy drop", found[0], found[1], "points", *readings[judge(found[1])])


def _gain(plan: DatasetPlan, model: str, baseline: str | None) -> Number | None:
    """Its gain over the hypothesis-only model: paired where the run scored it, otherwise its own
    accuracy beside the baseline's, counted only when the two intervals do not overlap."""
    paired = first_measured(plan, model, plan.baseline, "accuracy_gain_over_baseline")
    if paired:
        split, score = paired
        return Number(
            f"accuracy over the hypothesis-only baseline (`{plan.baseline}`, paired)",
            split,
            score,
            "points",
            *GAIN_READINGS[effect(score)],
        )
    found = first_measured(plan, model, plan.baseline, "accuracy")
    if not baseline or not found:
        return None
    split, score = found
    base = plan.scores.get(baseline, plan.baseline, split, "accuracy", "all")
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
    return Number(f"accuracy (`{plan.baseline}`), beside the hypothesis-only model", split, score, "%", *reading)


def uses_table_finding(plan: DatasetPlan, model: str, baseline: str | None) -> Finding:
    removed = [_read(plan, model, p, CONTROL_READINGS) for p in plan.role(TABLE_REMOVED)]
    helps = [n for n in (*removed, _gain(plan, model, baseline)) if n]
    disturbs = [n for p in plan.role(WRONG_TABLE) if (n := _read(plan, model, p, CONTROL_READINGS))]
    answer = vote(helps) if helps else vote(disturbs)
    controls = _names(plan.role(TABLE_REMOVED) + plan.role(WRONG_TABLE))
    sentence = {
        YES: "Yes: taking its table away or changing it clearly changes its accuracy.",
        NO: "No, its table does not help it: it does as well without it, or no better than the statement alone.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: f"Not measured: run {controls}, or add a hypothesis-only model.",
    }[answer]
    return Finding(terms.USES_TABLE, answer, sentence, helps + disturbs)


def _needed_records(plan: DatasetPlan, model: str) -> list[Number]:
    """The records (or cells) the statement needs, changed: a clear drop says it misses the change;
    no drop says it follows it only where it had accuracy to lose."""
    needed = plan.role(NEEDED_ROWS)
    if not needed:
        return []
    lead = over_majority(plan, model, section_splits(plan, needed[0])[0])
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
    return [n for p in needed if (n := _read(plan, model, p, readings))]


def right_records_finding(plan: DatasetPlan, model: str, uses: str) -> Finding:
    few_moves = ("little effect; a model that ignores its table does not move either", None)
    other_readings = {
        "clear": ("deleting records that do not matter moves it", NO),
        "none": few_moves,
        "rise": few_moves,
        "unclear": ("the interval allows both", None),
    }
    shown_readings = {
        k: (f"{v[0]}; shown, not counted: it mixes records read and not read", None) for k, v in DROP_READINGS.items()
    }
    needed = _needed_records(plan, model)
    numbers = needed + [
        n
        for n in (
            *(_read(plan, model, p, other_readings) for p in plan.role(OTHER_ROWS)),
            *(_read(plan, model, p, shown_readings) for p in plan.role(ANY_ROWS)),
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
    if answer == YES and not any(n.signal == YES for n in needed):
        answer = CANNOT_TELL  # only changing the records it needs tests that it rests on them
    on = section_splits(plan, plan.role(NEEDED_ROWS)[0]) if plan.role(NEEDED_ROWS) else ()
    sentence = {
        YES: "Yes: when the records its statement needs change, it follows the label the program gives.",
        NO: "Mostly not: it misses changes to the records the statement needs, or moves when others change.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: f"Not measured: run {_names(plan.role(NEEDED_ROWS))} on {', '.join(on)}.",
    }[answer]
    return Finding(terms.RIGHT_ROWS, answer, sentence, numbers)


FLIP_READINGS = {
    "clear": ("a clear drop: when the wording flips the label it keeps its old answer", YES),
    "none": ("no effect", NO),
    "rise": ("a clear rise: it follows cues in the edited wording", None),
    "unclear": ("the interval allows both", None),
}


def artifacts_finding(plan: DatasetPlan, model: str, facts: ModelFacts) -> Finding:
    numbers = []
    for probe in plan.role(LABEL_FLIP):
        found = first_measured(plan, model, probe, "accuracy_drop")
        if found:
            split, score = found
            readings = dict(FLIP_READINGS)
            if side := one_sided_flips(plan.scores, model, split, column=probe):
                # On E->C edits alone a model that answers REFUTED to every edit loses nothing either.
                readings["none"] = (f"no effect, on {side.replace('->', '→')} edits only: not counted", None)
            what = f"{plan.role_of(probe).reading} (`{probe}`): accuracy drop"
            numbers.append(Number(what, split, score, "points", *readings[effect(score)]))
    if facts.premise == HYPOTHESIS_ONLY:
        numbers = [replace(n, signal=None) for n in numbers]  # it cannot keep an answer its table gave
        lead = over_majority(plan, model)
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
                    f"accuracy over the majority class ({majority:.1f}%, `{plan.baseline}`)",
                    split,
                    score,
                    "points",
                    *readings[effect(score)],
                ),
            )
    answer = vote(numbers)
    sentence = {
        YES: "Yes: from the statement alone it beats the majority class."
        if facts.premise == HYPOTHESIS_ONLY
        else "Yes: when an edit of the statement flips the label it often keeps its old answer.",
        NO: "No sign of it.",
        CANNOT_TELL: "Cannot tell: the numbers below disagree, or their intervals allow both readings.",
        NOT_MEASURED: "Not measured: no label-flipping statement edits in this run.",
    }[answer]
    return Finding(terms.ARTIFACTS, answer, sentence, numbers)


def knowledge_finding(plan: DatasetPlan, model: str, uses: str) -> Finding:
    renamed = next((n for p in plan.role(RENAMED) if (n := _read(plan, model, p, DROP_READINGS))), None)
    if not renamed:
        return Finding(terms.KNOWLEDGE, NOT_MEASURED, f"Not measured: run {_names(plan.role(RENAMED))}.")
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


def _caveats(plan: DatasetPlan, model: str, facts: ModelFacts, at_chance: tuple[str, dict, float] | None) -> list[str]:
    caveats = [UNTRAINED_CAVEAT] if facts.trained is False else []
    if at_chance:
        split, lead, majority = at_chance
        caveats.append(
            f"Its accuracy on {split} leads the majority class ({majority:.1f}%) by {lead['mean']:+.1f} "
            f"[{lead['ci_low']:+.1f}, {lead['ci_high']:+.1f}] points: no better than answering the commoner label, "
            "so its other numbers say nothing about reasoning."
        )
    caveats += premise_caveats(facts)
    neutral = first_measured(plan, model, plan.baseline, "neutral_answers_pct")
    if neutral and neutral[1]["mean"]:
        split, share = neutral
        caveats.append(
            f"It answers with three labels: its NEUTRAL answers ({share['mean']:.1f}% "
            f"[{share['ci_low']:.1f}, {share['ci_high']:.1f}] of the statements on {split}) are read as "
            f"{plan.dataset.label_names['C']}."
        )
    if too_few := left_out_caveat(plan.scores, model, deciding_probes(plan)):
        caveats.append(too_few)
    return caveats


def own_verdict(plan: DatasetPlan, model: str, facts: ModelFacts, baseline: str | None) -> Verdict:
    """The verdict on one model from its rows of the dataset; `baseline`: the hypothesis-only model
    its accuracy is set beside (trained on the same data), if any."""
    lead = over_majority(plan, model)
    # A hypothesis-only model at the majority class is the finding (the statements carry no cues), not
    # a failed training: a dataset's statements may be written to leave none (as the relational one's are).
    at_chance = (
        lead
        if lead
        and (lead[1]["ci_high"] < NEGLIGIBLE_POINTS or answers_one_label(plan, model, lead[0]))
        and facts.premise != HYPOTHESIS_ONLY
        else None
    )
    if facts.premise == HYPOTHESIS_ONLY:
        uses, rows = baseline_findings()
        headline = f"{model} cannot use its table: it sees the statement only (the baseline)."
    else:
        uses = uses_table_finding(plan, model, baseline)
        rows = right_records_finding(plan, model, uses.answer)
        headline = headline_of(model, uses, rows)
    findings = [uses, rows, artifacts_finding(plan, model, facts), knowledge_finding(plan, model, uses.answer)]
    unreadable = "untrained" if facts.trained is False else "at chance" if at_chance else None
    caveats = _caveats(plan, model, facts, at_chance)
    headline = unreadable_headline(model, findings, unreadable) or headline
    if unreadable == "at chance":  # a model of another dataset may have learned its task and still not carry it over
        headline = (
            f"{model} does no better than the majority class on {plan.dataset.title}: its numbers here say nothing "
            "about reasoning."
        )
    return Verdict(model, headline, findings, caveats, unreadable)
