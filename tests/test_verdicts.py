"""Verdicts from constructed score tables: a table-blind model, an evidence-using one, one in
between, and the cases that change the reading (the baseline, an untrained head, truncation,
the aligner). Then the report built from such a table, in headless Chromium: the verdicts are on
the first screen, with their numbers, and the scorecard has a row per model."""

from __future__ import annotations

import re
from dataclasses import replace

import polars as pl
import pytest

from tabprobe.report import verdict_terms, verdicts
from tabprobe.report.assemble import assemble, build_sections
from tabprobe.report.blocks import VerdictBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.report.plan import part_of
from tabprobe.report.verdict_terms import CANNOT_TELL, DOES_NOT_APPLY, NO, NOT_MEASURED, YES, ModelFacts
from tabprobe.scoring.results import Index

PARA = ModelFacts(premise="paragraph")


def results(
    model: str, cells: dict[tuple[str, str], tuple[float, float, float]], split: str = "alpha1", n: int = 400
) -> Index:
    """A results table of one model: (probe, statistic) -> (mean, ci_low, ci_high), label all."""
    rows = [
        {
            "model": model,
            "probe": probe,
            "split": split,
            "statistic": statistic,
            "label": "all",
            "mean": mean,
            "std": 1.0,
            "ci_low": low,
            "ci_high": high,
            "n": n,
            "paper": None,
        }
        for (probe, statistic), (mean, low, high) in cells.items()
    ]
    return Index(frame(rows))


def frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema={
            "model": pl.String,
            "probe": pl.String,
            "split": pl.String,
            "statistic": pl.String,
            "label": pl.String,
            "mean": pl.Float64,
            "std": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "n": pl.Int64,
            "paper": pl.Float64,
        },
    )


# minilm-struct on the default run (issue 19): removing the premise moves it by -0.57 [-2.6, +1.7],
# it is below the hypothesis-only model, and relevant-row deletion leaves 66% where they must move.
TABLE_BLIND = {
    ("hypothesis_only", "accuracy_drop"): (-0.57, -2.6, 1.7),
    ("original", "accuracy_gain_over_baseline"): (-5.4, -8.1, -2.6),
    ("relevant_row_deletion", "unchanged_where_required_pct"): (66.0, 61.0, 71.0),
    ("irrelevant_row_deletion", "invalid_transition_pct"): (2.2, 1.0, 3.6),
    ("evidence_selection", "uses_wrong_or_no_rows_pct"): (81.0, 74.0, 88.0),
    ("table4:label_flipped", "accuracy_drop"): (21.0, 16.0, 26.0),
    ("table4:label_preserved", "accuracy_drop"): (1.0, -2.0, 4.0),
    ("table7:label_preserved", "accuracy_drop"): (4.0, 1.0, 7.0),
}
EVIDENCE_USING = {
    ("hypothesis_only", "accuracy_drop"): (15.0, 12.0, 18.0),
    ("dummy_premise", "accuracy_drop"): (14.0, 11.0, 17.0),
    ("original", "accuracy_gain_over_baseline"): (14.4, 11.0, 17.5),
    ("relevant_row_deletion", "unchanged_where_required_pct"): (12.0, 8.0, 16.0),
    ("irrelevant_row_deletion", "invalid_transition_pct"): (4.0, 2.5, 5.5),
    ("evidence_selection", "uses_wrong_or_no_rows_pct"): (30.0, 24.0, 36.0),
    ("table4:label_flipped", "accuracy_drop"): (1.0, -1.0, 2.5),
    ("table4:label_preserved", "accuracy_drop"): (0.5, -1.5, 2.4),
    ("table7:label_preserved", "accuracy_drop"): (0.8, -1.2, 2.6),
}
IN_BETWEEN = {
    ("hypothesis_only", "accuracy_drop"): (2.0, -1.0, 5.0),
    ("original", "accuracy_gain_over_baseline"): (1.0, -2.0, 4.0),
    ("relevant_row_deletion", "unchanged_where_required_pct"): (50.0, 44.0, 56.0),
    ("table4:label_flipped", "accuracy_drop"): (6.0, 1.0, 11.0),
    ("table4:label_preserved", "accuracy_drop"): (4.0, 0.5, 7.5),
    ("table7:label_preserved", "accuracy_drop"): (2.0, -1.0, 5.0),
}


def paper_verdict(scores: Index, model: str, facts: ModelFacts) -> verdict_terms.Verdict:
    """The verdict on a model of the paper dataset's part of a constructed results table."""
    return verdicts.verdict(part_of(scores, "infotabs"), model, facts)


def answers(verdict: verdict_terms.Verdict) -> list[str]:
    return [f.answer for f in verdict.findings]


def test_a_table_blind_model_does_not_use_its_table_and_its_stability_is_not_praised():
    verdict = paper_verdict(results("minilm-struct", TABLE_BLIND), "minilm-struct", PARA)
    assert verdict.headline == "minilm-struct does not use its table."
    assert answers(verdict) == [NO, NO, YES, DOES_NOT_APPLY]
    uses = verdict.finding(verdict_terms.USES_TABLE)
    texts = [n.text() for n in uses.numbers]
    assert texts[0] == (
        "table removed (`hypothesis_only`): accuracy drop on alpha1: -0.6 [-2.6, +1.7] points, n=400: "
        "no effect (under 3 points)"
    )
    assert "clearly worse than the hypothesis alone" in texts[1]  # -5.4 [-8.1, -2.6]
    # Staying put is shown beside, as the failure it is, not counted for the verdict.
    assert "66.0 [61.0, 71.0]%" in texts[2] and "ignore the deletion of the rows they need" in texts[2]
    rows = verdict.finding(verdict_terms.RIGHT_ROWS)
    assert "come from not moving, not from reasoning" in rows.sentence
    assert all(n.signal is None for n in rows.numbers)


def test_a_table_that_does_not_help_but_a_wrong_one_disturbs_is_not_use():
    """The default run's minilm-struct once it learned (54.5% on alpha1): removing its table changes
    nothing, it is below the hypothesis-only model, yet a dummy or another table costs it 3-4 points."""
    cells = dict(TABLE_BLIND)
    cells[("dummy_premise", "accuracy_drop")] = (3.2, 0.3, 5.8)
    cells[("swapped_table", "accuracy_drop")] = (4.2, 1.8, 6.6)
    verdict = paper_verdict(results("minilm-struct", cells), "minilm-struct", PARA)
    assert verdict.headline == "minilm-struct does not use its table."
    uses = verdict.finding(verdict_terms.USES_TABLE)
    assert uses.answer == NO
    assert "does not help it" in uses.sentence and "reads its table without reasoning from it" in uses.sentence
    assert [n.signal for n in uses.numbers[:4]] == [NO, NO, YES, YES]  # all shown, the wrong tables too
    # Where nothing says whether its table helps, a wrong table's clear drop is what there is to go on.
    only_wrong_tables = {k: v for k, v in cells.items() if k[0] not in ("hypothesis_only", "original")}
    verdict = paper_verdict(results("m", only_wrong_tables), "m", PARA)
    assert verdict.finding(verdict_terms.USES_TABLE).answer == YES


def test_a_clear_rise_is_not_read_as_no_effect():
    """The default run of issue 21: label-flipping edits raised minilm-struct's accuracy by 17.9
    [11.2, 25.1] points (it reads a negation as a contradiction, say). That is no drop, but
    neither "no effect" nor "no sign of artifacts"; removing the table while accuracy rises means
    the table does not help."""
    cells = dict(TABLE_BLIND)
    cells[("table4:label_flipped", "accuracy_drop")] = (-17.9, -25.1, -11.2)
    cells[("hypothesis_only", "accuracy_drop")] = (-4.0, -6.5, -1.5)
    verdict = paper_verdict(results("minilm-struct", cells), "minilm-struct", PARA)
    artifacts = verdict.finding(verdict_terms.ARTIFACTS)
    assert artifacts.answer == CANNOT_TELL and "raise its accuracy" in artifacts.sentence
    assert "a clear rise" in artifacts.numbers[0].text() and "no effect" not in artifacts.numbers[0].text()
    uses = verdict.finding(verdict_terms.USES_TABLE)
    assert uses.answer == NO and uses.numbers[0].signal == NO and "does better without it" in uses.numbers[0].text()
    # An interval below 0 that does not reach -3 points is still no effect worth the name.
    assert verdict_terms.effect({"ci_low": -2.5, "ci_high": -0.5}) == "none"
    assert verdict_terms.effect({"ci_low": -3.0, "ci_high": -0.5}) == "rise"


def test_an_evidence_using_model_uses_its_table_and_the_right_rows():
    verdict = paper_verdict(results("roberta", EVIDENCE_USING), "roberta", PARA)
    assert verdict.headline == "roberta uses its table, and the right rows."
    assert answers(verdict) == [YES, YES, NO, NO]
    assert verdict.caveats == []


def test_an_in_between_model_gets_cannot_tell_wherever_an_interval_allows_both():
    verdict = paper_verdict(results("middling", IN_BETWEEN), "middling", PARA)
    assert verdict.headline == "Cannot tell whether middling uses its table."
    # Flipping edits hurt, but not clearly more than preserving ones: the intervals overlap.
    assert answers(verdict) == [CANNOT_TELL, CANNOT_TELL, CANNOT_TELL, CANNOT_TELL]


def test_signals_that_disagree_give_cannot_tell():
    cells = dict(EVIDENCE_USING)
    cells[("original", "accuracy_gain_over_baseline")] = (-1.0, -3.0, 1.5)  # no better than the baseline
    verdict = paper_verdict(results("m", cells), "m", PARA)
    assert verdict.finding(verdict_terms.USES_TABLE).answer == CANNOT_TELL


def test_using_the_table_but_not_the_rows_the_hypothesis_needs():
    cells = dict(EVIDENCE_USING)
    cells[("relevant_row_deletion", "unchanged_where_required_pct")] = (75.0, 70.0, 80.0)
    cells[("evidence_selection", "uses_wrong_or_no_rows_pct")] = (60.0, 55.0, 66.0)
    verdict = paper_verdict(results("m", cells), "m", PARA)
    assert verdict.headline == "m uses its table, but mostly not the rows the hypothesis needs."
    # One number saying no against one saying yes: cannot tell.
    cells[("evidence_selection", "uses_wrong_or_no_rows_pct")] = (30.0, 24.0, 36.0)
    assert paper_verdict(results("m", cells), "m", PARA).finding(verdict_terms.RIGHT_ROWS).answer == CANNOT_TELL
    # Moving after an irrelevant row is deleted says no; few such moves never say yes.
    cells = {k: v for k, v in EVIDENCE_USING.items() if k[0] not in ("relevant_row_deletion", "evidence_selection")}
    cells[("irrelevant_row_deletion", "invalid_transition_pct")] = (18.0, 14.0, 22.0)
    assert paper_verdict(results("m", cells), "m", PARA).finding(verdict_terms.RIGHT_ROWS).answer == NO
    cells[("irrelevant_row_deletion", "invalid_transition_pct")] = (1.0, 0.0, 2.0)
    assert paper_verdict(results("m", cells), "m", PARA).finding(verdict_terms.RIGHT_ROWS).answer == CANNOT_TELL
    # Without relevant-row deletion, evidence selection alone cannot say the rows are right.
    cells = {k: v for k, v in EVIDENCE_USING.items() if k[0] != "relevant_row_deletion"}
    assert paper_verdict(results("m", cells), "m", PARA).finding(verdict_terms.RIGHT_ROWS).answer == CANNOT_TELL


def test_the_hypothesis_only_baseline_cannot_use_its_table():
    verdict = paper_verdict(
        results("minilm-hypo", {("table4:label_flipped", "accuracy_drop"): (30.0, 25.0, 35.0)}),
        "minilm-hypo",
        ModelFacts(premise="hypothesis_only", truncated_pct=0.0),
    )
    assert verdict.headline == "minilm-hypo cannot use its table: it sees the hypothesis only (the baseline)."
    assert answers(verdict) == [DOES_NOT_APPLY, DOES_NOT_APPLY, YES, NOT_MEASURED]


def test_nothing_measured_says_so_rather_than_guessing():
    verdict = paper_verdict(results("m", {}), "m", PARA)
    assert answers(verdict) == [NOT_MEASURED, NOT_MEASURED, NOT_MEASURED, NOT_MEASURED]
    assert verdict.headline == "Whether m uses its table was not measured."


def test_caveats_that_change_the_reading():
    facts = ModelFacts(premise="paragraph", truncated_pct=67.2, max_length=128, relevance_source="aligner")
    verdict = paper_verdict(results("m", TABLE_BLIND), "m", facts)
    assert verdict.caveats[0].startswith("67% of its premises were cut at 128 tokens")
    assert "aligner" in verdict.caveats[1]
    untrained = paper_verdict(results("m", EVIDENCE_USING), "m", ModelFacts(premise="paragraph", trained=False))
    assert untrained.headline == "m has an untrained head: its numbers say nothing about reasoning."
    assert set(answers(untrained)) == {CANNOT_TELL}


def test_a_model_at_chance_gets_no_verdict_on_reasoning():
    """A training that collapsed to one label (the default run on a CPU where bf16 training did not
    learn: accuracy 32.75 [29.9, 35.6] on alpha1) is table-blind too, but not for the reason the
    verdict would give: it has learned nothing."""
    collapsed = TABLE_BLIND | {("original", "accuracy"): (32.75, 29.9, 35.6)}
    verdict = paper_verdict(results("minilm-struct", collapsed), "minilm-struct", PARA)
    assert verdict.headline.startswith("minilm-struct is at chance: it has not learned the task")
    assert verdict.unreadable == "at chance"
    assert set(answers(verdict)) <= {CANNOT_TELL, DOES_NOT_APPLY, NOT_MEASURED}
    assert any(
        c.startswith("Its accuracy on alpha1 is 32.8% [29.9, 35.6], no better than chance (33.3%)")
        for c in verdict.caveats
    )
    assert verdicts.short_verdict(verdict) == "at chance: not learned"
    # Weak but above chance, or a small slice whose wide interval reaches down to chance: read as usual.
    for accuracy in ((40.0, 37.0, 43.0), (47.5, 32.5, 62.5)):
        weak = TABLE_BLIND | {("original", "accuracy"): accuracy}
        assert paper_verdict(results("m", weak), "m", PARA).headline == "m does not use its table."
    # The baseline at chance is unreadable too.
    blind_baseline = paper_verdict(
        results("h", {("original", "accuracy"): (33.0, 30.0, 36.0)}), "h", ModelFacts(premise="hypothesis_only")
    )
    assert blind_baseline.unreadable == "at chance"


def test_the_at_chance_rule_reads_the_plans_chance_level():
    """Chance is the paper dataset's part's (`DatasetPlan.chance_pct`, from `ReportPart.chance`): with
    two labels in equal shares it is 50, and a model at 45 [42, 48] is at chance there though well over a
    third; a paper dataset that declares no single level stops the verdicts with its name."""
    scores = results("m", TABLE_BLIND | {("original", "accuracy"): (45.0, 42.0, 48.0)})
    plan = part_of(scores, "infotabs")
    assert verdicts.verdicts(plan, {"m": PARA})["m"].unreadable is None
    two_labels = replace(plan, dataset=replace(plan.dataset, labels=("E", "C")))
    verdict = verdicts.verdicts(two_labels, {"m": PARA})["m"]
    assert verdict.unreadable == "at chance"
    assert any("no better than chance (50.0%)" in c for c in verdict.caveats)
    assert "its interval's high end under 50.0% + 3 points" in verdict_terms.rules(two_labels.chance_pct)[-1]
    majority = replace(plan.dataset, report=replace(plan.dataset.report, chance="majority"))
    with pytest.raises(ValueError, match=r"dataset infotabs \(the paper's\) declares `ReportPart.chance` 'majority'"):
        verdicts.verdicts(replace(plan, dataset=majority), {"m": PARA})


def test_a_number_is_read_from_its_interval_not_its_mean():
    assert verdict_terms.effect({"ci_low": 0.1, "ci_high": 6.0}) == "clear"
    assert verdict_terms.effect({"ci_low": 0.5, "ci_high": 2.9}) == "none"  # real, but under 3 points
    assert verdict_terms.effect({"ci_low": -0.1, "ci_high": 6.0}) == "unclear"
    assert verdict_terms.against({"ci_low": 50.5, "ci_high": 60.0}, 50) == "above"
    assert verdict_terms.against({"ci_low": 45.0, "ci_high": 55.0}, 50) == "unclear"


def constructed_run() -> tuple[Index, RunInfo]:
    table = Index(
        pl.concat(
            [
                results("minilm-struct", TABLE_BLIND).table,
                results(
                    "minilm-hypo",
                    {
                        ("original", "accuracy"): (59.8, 56.7, 62.8),
                        ("table4:label_flipped", "accuracy_drop"): (30.0, 25.0, 35.0),
                    },
                ).table,
                results("minilm-struct", {("original", "accuracy"): (54.4, 51.2, 57.5)}).table,
            ]
        )
    )
    models = {
        "minilm-struct": {
            "premise": "paragraph",
            "checkpoint": "resources/models/minilm-struct",
            "meta": {},
            "fingerprint": "f1",
            "precision": "fp32",
            "max_length": 128,
            "truncated": 672,
            "examples": 1000,
        },
        "minilm-hypo": {
            "premise": "hypothesis_only",
            "checkpoint": "resources/models/minilm-hypo",
            "meta": {},
            "fingerprint": "f2",
            "precision": "fp32",
            "max_length": 64,
            "truncated": 0,
            "examples": 1000,
        },
    }
    run = RunInfo(
        splits=["alpha1"],
        probes=["original"],
        models=models,
        data_source="constructed",
        seed=1,
        scoring={"samplings": 100, "fraction": 0.8, "bootstrap": 1000, "confidence": 0.95},
        coverage=[],
    )
    return table, run


def test_the_report_opens_with_the_verdicts_and_the_scorecard():
    table, run = constructed_run()
    sections = build_sections(table, run)
    assert [s.anchor for s in sections[:3]] == ["verdicts", "scorecard", "summary"]
    blocks = [b for b in sections[0].blocks if isinstance(b, VerdictBlock)]
    assert [b.verdict.headline for b in blocks] == [
        "minilm-struct does not use its table.",
        "minilm-hypo cannot use its table: it sees the hypothesis only (the baseline).",
    ]
    markdown = assemble(table, run).markdown
    assert "67% of its premises were cut at 128 tokens" in markdown
    # No sentence calls few invalid transitions good without saying that a table-blind model has none.
    assert "For an ideal model all these numbers are zero" not in markdown
    assert "a model that ignores its table never moves" in markdown
    scorecard = markdown.split("## Scorecard")[1].split("\n## ")[0]
    assert re.search(
        r"\| minilm-struct \| 54\.40 \(1\.00\) \[51\.2, 57\.5\] n=400 \| -5\.40 .*\| does not use its table \|",
        scorecard,
    )
    assert re.search(r"\| minilm-hypo \| 59\.80 .*\| cannot use its table \(baseline\) \|", scorecard)
    assert "| paper: RoBERTa-large | 74.88 | +14.40 |" in scorecard


def test_the_verdicts_are_on_the_first_screen_in_headless_chromium(tmp_path):
    from browser import artifact_path, open_page

    table, run = constructed_run()
    page_path = tmp_path / "index.html"
    page_path.write_text(assemble(table, run).html, encoding="utf-8")
    with open_page(page_path, width=1280, height=900) as page:
        assert page.errors == [] and page.external_requests == []
        found = page.js("""
            const screen = window.innerHeight;
            const verdicts = Array.from(document.querySelectorAll('#verdicts article.verdict'));
            const scorecard = Array.from(document.querySelectorAll('#scorecard table')).find(t => t.caption);
            return {
              verdicts: verdicts.map(v => ({model: v.dataset.model, uses: v.dataset.usesTable,
                                            headline: v.querySelector('h3').textContent,
                                            top: v.querySelector('h3').getBoundingClientRect().top,
                                            numbers: Array.from(v.querySelectorAll('dd:first-of-type li')).map(li => li.textContent)})),
              screen: screen,
              rows: Array.from(scorecard.tBodies[0].rows).map(r => r.cells[0].textContent),
              headers: Array.from(scorecard.tHead.rows[0].cells).map(c => c.textContent),
              figure: document.querySelectorAll('#scorecard figure svg[role=img]').length,
            }""")
        para, hypo = found["verdicts"]
        assert (para["model"], para["uses"], para["headline"]) == (
            "minilm-struct",
            "no",
            "minilm-struct does not use its table.",
        )
        assert para["top"] < found["screen"]  # on the first screen, without scrolling
        assert any(
            n.startswith("table removed (hypothesis_only): accuracy drop on alpha1: -0.6 [-2.6, +1.7] points")
            for n in para["numbers"]
        )
        assert hypo["uses"] == "does-not-apply" and "cannot use its table" in hypo["headline"]
        assert found["rows"] == ["minilm-struct", "minilm-hypo", "paper: RoBERTa-large"]
        assert found["headers"][-1] == "Verdict" and "higher is better" in found["headers"][1]
        assert found["figure"] == 1
        page.screenshot(artifact_path("verdicts.png"))


@pytest.mark.parametrize(
    "model,cells,expected",
    [
        ("minilm-struct", TABLE_BLIND, "does not use its table"),
        ("roberta", EVIDENCE_USING, "uses its table and the right rows"),
        ("middling", IN_BETWEEN, "cannot tell"),
    ],
)
def test_the_short_verdict_of_the_scorecard(model, cells, expected):
    assert verdicts.short_verdict(paper_verdict(results(model, cells), model, PARA)) == expected


def with_directions(index_rows: list[dict], directions: dict[str, int], probe: str = "table4:label_flipped") -> Index:
    """A results table plus the per-direction accuracy rows of a flipped column (direction -> n)."""
    extra = [
        {
            "model": "minilm-struct",
            "probe": probe,
            "split": "alpha1",
            "statistic": "accuracy",
            "label": direction,
            "mean": 70.0,
            "std": 1.0,
            "ci_low": 65.0,
            "ci_high": 75.0,
            "n": n,
            "paper": None,
        }
        for direction, n in directions.items()
    ]
    return Index(frame(index_rows + extra))


def test_a_one_sided_flipped_column_never_says_no_to_artifacts():
    """EVIDENCE_USING's flipped edits show no drop, which says no when they hold both directions;
    on E->C edits alone a model answering CONTRADICT to every edit loses nothing either, so the
    answer is cannot tell, and a caveat says why."""
    base = results("minilm-struct", EVIDENCE_USING).table.to_dicts()
    both = paper_verdict(with_directions(base, {"E->C": 60, "C->E": 50}), "minilm-struct", PARA)
    assert both.finding(verdict_terms.ARTIFACTS).answer == NO
    assert not [c for c in both.caveats if "label-flipped column" in c]
    one = paper_verdict(with_directions(base, {"E->C": 60, "C->E": 0}), "minilm-struct", PARA)
    artifacts = one.finding(verdict_terms.ARTIFACTS)
    assert artifacts.answer == CANNOT_TELL and "E→C only" in artifacts.sentence
    (caveat,) = [c for c in one.caveats if "label-flipped column" in c]
    assert "holds E→C edits only on alpha1" in caveat and "never no" in caveat


def test_knowledge_with_label_flipping_counterfactuals_only_says_which_ones_it_reads():
    cells = {k: v for k, v in EVIDENCE_USING.items() if k[0] != "table7:label_preserved"}
    cells[("table7:label_flipped", "accuracy")] = (55.0, 50.0, 60.0)
    finding = paper_verdict(results("minilm-struct", cells), "minilm-struct", PARA).finding(verdict_terms.KNOWLEDGE)
    assert finding.answer == NOT_MEASURED and "only label-flipping ones" in finding.sentence


def test_a_model_reading_selected_rows_is_read_as_using_the_rows_the_pipeline_chose():
    """premise_selection: the pipeline chose the rows its premise holds, so the right-rows answer says
    the model used them; the two numbers the selection shapes (its own evidence, an irrelevant row
    deleted: a row left out cannot move it) are shown, not counted; the caveat says so."""
    selected = ModelFacts(premise="para", premise_selection="related")
    verdict = paper_verdict(results("m", EVIDENCE_USING), "m", selected)
    rows = verdict.finding(verdict_terms.RIGHT_ROWS)
    assert rows.answer == YES
    assert rows.sentence.startswith(
        "Yes, of the rows it was given: the pipeline chose them (premise selection `related`)"
    )
    assert "the model used them" in rows.sentence
    shaped = [n for n in rows.numbers if "own evidence" in n.what or "irrelevant row" in n.what]
    assert len(shaped) == 2 and all(n.signal is None and "selection shapes it" in n.reading for n in shaped)
    assert any("the pipeline chose the rows, the model used them" in c for c in verdict.caveats)
    # Its own evidence on wrong rows no longer says no: only deleting the needed rows tests the model.
    cells = dict(EVIDENCE_USING)
    cells[("evidence_selection", "uses_wrong_or_no_rows_pct")] = (60.0, 55.0, 66.0)
    assert paper_verdict(results("m", cells), "m", PARA).finding(verdict_terms.RIGHT_ROWS).answer == CANNOT_TELL
    assert paper_verdict(results("m", cells), "m", selected).finding(verdict_terms.RIGHT_ROWS).answer == YES
    # Predictions that stay put where the needed rows are deleted say no, of the rows it was given.
    cells[("relevant_row_deletion", "unchanged_where_required_pct")] = (75.0, 70.0, 80.0)
    no = paper_verdict(results("m", cells), "m", selected).finding(verdict_terms.RIGHT_ROWS)
    assert no.answer == NO and "even of the rows the pipeline chose for it" in no.sentence
    # A model that reads whole tables gets neither the reading nor the caveat.
    whole = paper_verdict(results("m", EVIDENCE_USING), "m", PARA)
    assert "pipeline" not in whole.finding(verdict_terms.RIGHT_ROWS).sentence and whole.caveats == []


def test_the_report_says_which_models_read_selected_rows_and_by_what_rule():
    table, run = constructed_run()
    run.models["minilm-struct"].update(
        premise_selection="related",
        selected=640,
        premise_holds="premise selection `related`: the rows most related to the hypothesis, kept in table order",
    )
    facts = verdicts.facts_of(run.models, {})
    assert facts["minilm-struct"].premise_selection == "related" and facts["minilm-hypo"].premise_selection is None
    markdown = assemble(table, run).markdown
    assert "paragraph, rows selected (`related`; 640 of 1000 premises narrowed)" in markdown
    assert "Premises selected by the pipeline, not read whole" in markdown
    assert "minilm-struct: premise selection `related`: the rows most related to the hypothesis" in markdown
    assert "the pipeline chose the rows, the model used them" in markdown
