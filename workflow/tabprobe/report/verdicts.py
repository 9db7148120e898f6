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

The rules (verdict_terms.rules, printed in the report) read each number as one of three: a clear
effect, no effect worth the name, or an interval that allows both, which makes the answer
"cannot tell". Signals that disagree also give "cannot tell". A low invalid-transition share is
never read as good on its own: a model that ignores its table never moves and scores zero.
"""

from __future__ import annotations

from collections.abc import Mapping

from tabprobe.data.datasets import all_datasets
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.probes.base import OTHER_ROWS
from tabprobe.report.plan import DatasetPlan
from tabprobe.report.power import left_out_caveat
from tabprobe.report.scorecard import paper_scorecard
from tabprobe.report.verdict_questions import (
    artifacts_finding,
    baseline_findings,
    knowledge_finding,
    one_sided_flips,
    premise_controls,
    table_findings,
)
from tabprobe.report.verdict_terms import (
    CANNOT_TELL,
    DOES_NOT_APPLY,
    NEGLIGIBLE_POINTS,
    NO,
    NOT_MEASURED,
    RIGHT_ROWS,
    TRUNCATION_CAVEAT_PCT,
    USES_TABLE,
    YES,
    Finding,
    ModelFacts,
    Verdict,
)


def deciding_probes(plan: DatasetPlan) -> tuple[str, ...]:
    """Every probe a verdict reads (verdict_questions): the scorecard's, the other premise controls,
    and the two read beside them. Those a model holds too few examples of are named in its caveats."""
    return tuple(
        dict.fromkeys(
            [m.probe for m in paper_scorecard(plan.catalog)]
            + premise_controls(plan)
            + [*plan.role(OTHER_ROWS), "table4:label_preserved"]
        )
    )


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
            premise_selection=info.get("premise_selection"),
        )
    return facts


def verdict(plan: DatasetPlan, model: str, facts: ModelFacts) -> Verdict:
    """The verdict on one model from the paper dataset's part of the report's plan: its rows of the
    results table (`results.collect`'s layout), its probes by verdict role, its chance level."""
    chance_pct = paper_chance_pct(plan)
    at_chance = _at_chance(plan, model, chance_pct)
    caveats = _caveats(plan, model, facts, at_chance, chance_pct)
    if facts.premise == HYPOTHESIS_ONLY:
        uses, rows = baseline_findings()
        headline = f"{model} cannot use its table: it sees the hypothesis only (the baseline)."
    else:
        uses, rows = table_findings(plan, model, facts.premise_selection)
        headline = headline_of(model, uses, rows)
    findings = [uses, rows, artifacts_finding(plan.scores, model), knowledge_finding(plan, model, uses.answer)]
    unreadable = "untrained" if facts.trained is False else "at chance" if at_chance else None
    return Verdict(model, unreadable_headline(model, findings, unreadable) or headline, findings, caveats, unreadable)


def unreadable_headline(model: str, findings: list[Finding], unreadable: str | None) -> str | None:
    """Where none of a model's numbers can be read as reasoning (`unreadable`: "untrained" or "at
    chance"), the headline that says so, every yes or no of `findings` turned into cannot tell;
    None (findings untouched) otherwise."""
    if not unreadable:
        return None
    for finding in findings:
        if finding.answer in (YES, NO):
            finding.answer, finding.sentence = CANNOT_TELL, f"Cannot tell: the model is {unreadable}."
    return {
        "untrained": f"{model} has an untrained head: its numbers say nothing about reasoning.",
        "at chance": f"{model} is at chance: it has not learned the task, so its numbers say nothing about reasoning.",
    }[unreadable]


UNTRAINED_CAVEAT = (
    "It has an untrained classification head: its numbers exercise the workflow but say nothing about reasoning."
)


def truncation_caveat(facts: ModelFacts) -> str | None:
    """What cutting its premises at max_length does to its numbers, where it cut many of them."""
    if facts.truncated_pct < TRUNCATION_CAVEAT_PCT or facts.premise == HYPOTHESIS_ONLY:
        return None
    return (
        f"{facts.truncated_pct:.0f}% of its premises were cut at {facts.max_length or 'max_length'} "
        "tokens: an edit to a row past the cut is invisible to it and keeps its prediction in place, "
        "which lowers invalid transitions and raises the share that stays put."
    )


def selection_caveat(facts: ModelFacts) -> str | None:
    """How its numbers read where the pipeline chose the rows its premise holds."""
    if not facts.premise_selection or facts.premise == HYPOTHESIS_ONLY:
        return None
    # What a premise row is on the datasets whose rows are other things (`ReportPart.texts`: records, columns).
    other_rows = "; ".join(
        d.report.texts["premise_selection"] for d in all_datasets() if "premise_selection" in d.report.texts
    )
    return (
        f"Its premises hold the rows{f' ({other_rows})' if other_rows else ''} that premise selection "
        f"(`{facts.premise_selection}`) chose as most related to the hypothesis, not the whole table: the pipeline "
        "chose the rows, the model used them. A row left out cannot move it, so staying put when an irrelevant row "
        "is deleted, and its own evidence being relevant rows, are partly the selection's doing; deleting the rows "
        "a hypothesis needs still tests the model, since selection then fills the premise with other rows."
    )


def premise_caveats(facts: ModelFacts) -> list[str]:
    """What the way its premises were made changes in its numbers: cut at max_length, rows selected."""
    return [c for c in (truncation_caveat(facts), selection_caveat(facts)) if c]


def _caveats(
    plan: DatasetPlan, model: str, facts: ModelFacts, at_chance: tuple[str, dict] | None, chance_pct: float
) -> list[str]:
    """What changes the reading of its numbers, in words shown with the verdict."""
    results = plan.scores
    caveats = []
    if facts.trained is False:
        caveats.append(UNTRAINED_CAVEAT)
    if at_chance:
        split, score = at_chance
        caveats.append(
            f"Its accuracy on {split} is {score['mean']:.1f}% [{score['ci_low']:.1f}, {score['ci_high']:.1f}], no "
            f"better than chance ({chance_pct:.1f}%): it has not learned the task (check its training: dev accuracy, "
            "loss), so its other numbers say nothing about reasoning."
        )
    caveats += premise_caveats(facts)
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
    if too_few := left_out_caveat(results, model, deciding_probes(plan)):
        caveats.append(too_few)
    return caveats


def headline_of(model: str, uses: Finding, rows: Finding) -> str:
    """The verdict in one sentence for a model that sees its table."""
    return {
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


def paper_chance_pct(plan: DatasetPlan) -> float:
    """The paper dataset's chance accuracy (its part's `plan.chance_pct`): one level for every split, as
    its splits hold each label in equal shares (`ReportPart.chance` "uniform"), which the verdicts'
    at-chance rule rests on."""
    paper, chance = plan.dataset, plan.chance_pct
    if chance is None:
        raise ValueError(
            f"dataset {paper.name} (the paper's) declares `ReportPart.chance` {paper.report.chance!r}: the paper "
            'verdicts read chance as one level for every split; declare chance="uniform" where its splits hold '
            "each label in equal shares"
        )
    return chance


def _at_chance(plan: DatasetPlan, model: str, chance_pct: float) -> tuple[str, dict] | None:
    """(split, accuracy) where the model's accuracy on the unperturbed split is no better than chance: a
    model whose whole accuracy interval there lies below chance plus NEGLIGIBLE_POINTS has not learned the
    task (a training that collapsed to one label, say), and none of its other numbers can be read as
    reasoning. (A wide interval that reaches chance from above, on a small slice, is not enough to say so.)"""
    found = plan.scores.first(model, plan.baseline, "accuracy", needs_interval=True)
    if found and found[1]["ci_high"] < chance_pct + NEGLIGIBLE_POINTS:
        return found
    return None


def verdicts(plan: DatasetPlan, models: Mapping[str, ModelFacts]) -> dict[str, Verdict]:
    """The verdicts on the paper dataset's models from its part of the plan: its rows, its chance level."""
    return {model: verdict(plan, model, facts) for model, facts in models.items()}


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
