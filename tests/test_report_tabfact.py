"""The report's TabFact part from a constructed results table: the four verdicts answered from
TabFact's probes, accuracy on the test set's simple and complex halves, transitions over ENTAILED and
REFUTED only (no NEUTRAL column or row), the probes labelled by executing programs; and the InfoTabS
parts of a run with TabFact rows and a TabFact-only model read exactly as without them."""

from __future__ import annotations

import polars as pl
import pytest
from test_verdicts import constructed_run, frame, results

from tabprobe.probes.base import LABEL_FLIP, NEEDED_ROWS, TABLE_REMOVED, WRONG_TABLE
from tabprobe.report import own_verdicts
from tabprobe.report.assemble import assemble, build_sections
from tabprobe.report.plan import part_of, plan_of
from tabprobe.report.render import to_html, to_markdown
from tabprobe.report.verdict_terms import CANNOT_TELL, DOES_NOT_APPLY, NO, YES, ModelFacts
from tabprobe.scoring.results import Index

# Trained by the run on TabFact: a two-label head, as the checkpoint's tabprobe metadata says.
TF_META = {
    "trained": True,
    "label_map": {"entailment": "E", "contradiction": "C"},
    "train_settings": {"epochs": 1, "max_length": 128},
    "train_examples": 6000,
    "train_examples_available": 92283,
    "train_seconds": 300.0,
    "dev_accuracy": 60.0,
    "dev_examples": 300,
}
TF_MODELS = {
    "tf-minilm": {"premise": "para", "checkpoint": "resources/models/tf-minilm", "meta": TF_META, "fingerprint": "t1",
                  "precision": "fp32", "max_length": 256, "truncated": 0, "examples": 500},
    "tf-minilm-hypo": {"premise": "hypothesis_only", "checkpoint": "resources/models/tf-minilm-hypo", "meta": TF_META,
                       "fingerprint": "t2", "precision": "fp32", "max_length": 64, "truncated": 0, "examples": 500},
}  # fmt: skip


def cell(model, probe, split, statistic, mean, low, high, n=400, label="all") -> dict:
    return {"model": model, "probe": probe, "split": split, "statistic": statistic, "label": label, "mean": mean,
            "std": 1.0, "ci_low": low, "ci_high": high, "n": n, "paper": None}  # fmt: skip


def original(model: str, accuracy: tuple[float, float, float], splits=("simple_test", "complex_test", "bootstrap")):
    """tf_original's accuracy on each split, with 240 ENTAILED and 160 REFUTED statements (majority 60%)."""
    rows = []
    for split in splits:
        rows.append(cell(model, "tf_original", split, "accuracy", *accuracy))
        rows += [
            cell(model, "tf_original", split, "accuracy", *accuracy, n=n, label=lab)
            for lab, n in (("E", 240), ("C", 160))
        ]
    return rows


def reads_its_table(model: str) -> list[dict]:
    """A TabFact-trained model that reads its table and follows the records its statement needs."""
    return [
        *original(model, (80.0, 77.0, 83.0)),
        cell(model, "tf_original", "complex_test", "accuracy", 64.0, 61.0, 67.0),
        cell(model, "tf_hypothesis_only", "simple_test", "accuracy_drop", 20.0, 16.0, 24.0),
        cell(model, "tf_swapped_table", "simple_test", "accuracy_drop", 18.0, 14.0, 22.0),
        cell(model, "relevant_record_deletion", "bootstrap", "accuracy_drop", 0.5, -1.5, 2.5),
        cell(model, "irrelevant_record_deletion", "bootstrap", "accuracy_drop", 0.2, -1.0, 1.5),
        cell(model, "program_cell_update", "bootstrap", "accuracy_drop", 1.0, -1.0, 2.9),
        cell(model, "tf_negation", "simple_test", "accuracy_drop", 1.0, -1.0, 2.5),
        cell(model, "tf_negation", "simple_test", "accuracy", 79.0, 75.0, 83.0, n=50, label="E->C"),
        cell(model, "tf_negation", "simple_test", "accuracy", 78.0, 74.0, 82.0, n=50, label="C->E"),
        cell(model, "tf_entity_rename", "simple_test", "accuracy_drop", 0.5, -1.0, 2.0),
        cell(model, "record_deletion", "simple_test", "transition_pct_to_C", 30.0, 25.0, 35.0, label="E"),
        cell(model, "record_deletion", "simple_test", "transition_pct_to_E", 8.0, 5.0, 11.0, label="C"),
        cell(model, "record_deletion", "simple_test", "invalid_transition_pct", 3.0, 1.5, 4.5),
    ]


def table_blind_three_way(model: str) -> list[dict]:
    """An InfoTabS (three-way) model on TabFact: its table does not help, NEUTRAL answers read as REFUTED."""
    return [
        *original(model, (66.0, 63.0, 69.0)),
        cell(model, "tf_original", "simple_test", "neutral_answers_pct", 21.0, 18.0, 24.0),
        cell(model, "tf_hypothesis_only", "simple_test", "accuracy_drop", 0.3, -2.0, 2.6),
        cell(model, "relevant_record_deletion", "bootstrap", "accuracy_drop", 7.0, 4.0, 10.0),
        cell(model, "record_deletion", "simple_test", "neutral_answers_pct_before", 20.0, 17.0, 23.0),
        cell(model, "record_deletion", "simple_test", "neutral_answers_pct_after", 22.0, 19.0, 25.0),
    ]


def tabfact_rows() -> list[dict]:
    baseline = [*original("tf-minilm-hypo", (61.0, 58.0, 64.0))]
    return reads_its_table("tf-minilm") + baseline + table_blind_three_way("minilm-struct")


def tabfact_run():
    """constructed_run (InfoTabS rows of minilm-struct and minilm-hypo) with TabFact rows, the two
    TabFact-trained models and TabFact coverage added."""
    infotabs, run = constructed_run()
    scores = Index(pl.concat([infotabs.table, frame(tabfact_rows())]))
    run.models = run.models | TF_MODELS
    run.probes = [*run.probes, "tf_original", "tf_hypothesis_only", "record_deletion", "relevant_record_deletion"]
    run.coverage = [
        {"probe": "record_deletion", "split": "simple_test", "limit": 400, "gold": 400, "perturbed": 95,
         "skipped": {"not a lookup statement": 305}},
    ]  # fmt: skip
    return scores, run


def test_a_run_with_tabfact_rows_leaves_the_infotabs_parts_as_they_were():
    infotabs, run = constructed_run()
    before = build_sections(infotabs, run)
    with_tabfact = build_sections(*tabfact_run())
    titles = [s.title for s in before]
    assert [s.title for s in with_tabfact[: len(before)]] == titles
    assert with_tabfact[len(before)].anchor == "tabfact"
    kept = with_tabfact[: len(before)]
    assert to_markdown(kept, "t", "l") == to_markdown(before, "t", "l")
    assert to_html(kept, "t", "l") == to_html(before, "t", "l")
    # Without TabFact rows the report is the one it always was, TabFact part and all absent.
    assert "TabFact" not in assemble(infotabs, run).markdown


def test_a_split_outside_the_reports_is_no_column_of_the_accuracy_table():
    # Under `full: true` `original` also runs on train (inoculation reads it), which the report's
    # splits do not list: its accuracy there is no column beside the paper's Table 1.
    infotabs, run = constructed_run()
    with_train = Index(
        pl.concat(
            [
                infotabs.table,
                results("minilm-struct", {("original", "accuracy"): (90.0, 89.0, 91.0)}, split="train").table,
            ]
        )
    )
    accuracy = next(s for s in build_sections(with_train, run) if s.title.startswith("Accuracy on the unperturbed"))
    table = next(b for b in accuracy.blocks if hasattr(b, "header"))
    assert table.header == ["Model", "alpha1"]
    assert "90.0" not in to_markdown([accuracy], "t", "l")


def test_the_tabfact_part_answers_the_four_questions_from_tabfact_probes():
    scores, run = tabfact_run()
    markdown = assemble(scores, run).markdown
    part = markdown.split("## TabFact: the same questions on relational tables")[1]
    assert "**tf-minilm uses its table, and the right rows.**" in part
    assert "**tf-minilm-hypo cannot use its table: it sees the statement only (the baseline).**" in part
    assert "**minilm-struct does not use its table.**" in part
    assert "table removed (`tf_hypothesis_only`): accuracy drop on simple_test: +20.0 [+16.0, +24.0] points" in part
    assert "records the program read deleted (`relevant_record_deletion`): accuracy drop on bootstrap" in part
    assert "tf-minilm-hypo's 61.0 [58.0, 64.0] (n=400, not paired)" in part
    assert "NEUTRAL answers (21.0% [18.0, 24.0] of the statements on simple_test) are read as REFUTED" in part
    assert "the TabFact models (tf-minilm, tf-minilm-hypo) were trained on them" in part
    assert "labels come from executing the statement's human-written program" in part


def test_simple_and_complex_statements_and_two_labels_only():
    scores, run = tabfact_run()
    markdown = assemble(scores, run).markdown
    part = markdown.split("## TabFact: the same questions on relational tables")[1]
    accuracy = part.split("### TabFact accuracy")[1].split("\n### ")[0]
    assert "| Model | simple_test | complex_test | bootstrap |" in accuracy
    assert "| tf-minilm | 80.00 (1.00) [77.0, 83.0] n=400 | 64.00 (1.00) [61.0, 67.0] n=400 |" in accuracy
    assert "| always the majority label | 60.00 | 60.00 | 60.00 |" in accuracy
    # The record probe reads as the paper dataset's table probes do (report.transitions), over two labels.
    transitions = part.split("### Probe `record_deletion`: invalid transitions")[1].split("\n### ")[0]
    assert "Valid transitions (" in transitions and "): ENTAILED → ENTAILED, REFUTED; REFUTED → REFUTED." in transitions
    assert "| Before → after | simple_test: → E | simple_test: → C |" in transitions
    assert "| REFUTED | 8.00 | – |" in transitions  # tf-minilm: REFUTED → ENTAILED, the invalid one
    assert "| NEUTRAL answers before the edit (% of all answers) | 20.00 (1.00) [17.0, 23.0] n=400 |" in transitions
    assert "A three-way (InfoTabS) model's NEUTRAL answers are read as REFUTED" in transitions
    # No NEUTRAL label anywhere in the TabFact part: neither a column nor a row of one.
    for label_n in ("→ NEUTRAL", "NEUTRAL →", "expected NEUTRAL", "| N |", "| NEUTRAL |", "CONTRADICT →"):
        assert label_n not in part
    assert "| record_deletion | simple_test | 400 | 400 | 95 | 400 | 40 | not a lookup statement: 305 |" in part
    # The InfoTabS parts show InfoTabS models only: the TabFact-trained models are not in its scorecard.
    scorecard = markdown.split("## Scorecard")[1].split("\n## ")[0]
    assert "tf-minilm" not in scorecard


def test_the_dataset_column_decides_where_the_results_table_has_one():
    rows = [cell("m", "tf_original", "simple_test", "accuracy", 70.0, 67.0, 73.0)]
    rows.append(cell("m", "original", "alpha1", "accuracy", 70.0, 67.0, 73.0))
    parts = plan_of(Index(frame(rows)), [], ["m"], []).parts
    assert list(parts) == ["infotabs", "tabfact"]
    assert parts["tabfact"].scores.models() == ["m"] and parts["infotabs"].scores.table.height == 1
    marked = frame(rows).with_columns(pl.Series("dataset", ["infotabs", "infotabs"]))  # as the table says
    assert list(plan_of(Index(marked), [], ["m"], []).parts) == ["infotabs"]


def test_rows_of_a_dataset_no_one_registered_are_an_error_not_the_paper_datasets():
    """A results row's dataset decides its part: one that is not registered is named, never read as
    InfoTabS (the report before its plan filed every row not TabFact's under InfoTabS)."""
    rows = [cell("m", "original", "alpha1", "accuracy", 70.0, 67.0, 73.0)] * 2
    marked = frame(rows).with_columns(pl.Series("dataset", ["infotabs", "ledger"]))
    with pytest.raises(ValueError, match=r"rows of dataset 'ledger', which is not registered"):
        plan_of(Index(marked), [], ["m"], [])


def test_the_plan_finds_each_probe_by_the_role_it_declares():
    """Which probe gives which verdict number is the probe's own declaration (Probe.verdict_role),
    in registry order; a dataset's own section holds the probes that name it."""
    rows = [cell("m", p, "bootstrap", "accuracy", 70.0, 67.0, 73.0) for p in ("tf_original", "program_cell_update")]
    tabfact = part_of(Index(frame(rows)), "tabfact")
    assert tabfact.baseline == "tf_original" and tabfact.chance_pct is None
    assert tabfact.role(TABLE_REMOVED) == ["tf_hypothesis_only"] and tabfact.role(WRONG_TABLE) == ["tf_swapped_table"]
    assert tabfact.role(NEEDED_ROWS) == ["relevant_record_deletion", "program_cell_update"]
    assert tabfact.role(LABEL_FLIP) == ["tf_negation", "tf_number_flip", "tf_entity_flip"]
    assert tabfact.in_section("executed") == ["program_cell_update"]  # those with rows
    infotabs = plan_of(Index(frame(rows[:0])), [], [], []).paper
    assert infotabs.role(WRONG_TABLE) == ["dummy_premise", "swapped_table"] and infotabs.chance_pct == 100 / 3


# What the report could ask of the probe registry: each is looked up in every module that imports it.
REGISTRY_LOOKUPS = ("get_probe", "probes_for", "is_fixed_set", "made_by")


def test_the_report_reads_the_probe_registry_only_while_its_plan_is_made(monkeypatch):
    """The plan loads each dataset's probes once (report.plan.Catalog); every section, of either
    dataset's part, then reads the plan: a registry lookup outside plan_of is a failure."""
    import importlib
    import pkgutil

    import tabprobe.probes
    import tabprobe.report
    from tabprobe.report import assemble as assemble_module
    from tabprobe.report import plan as plan_module

    planning = []
    outside = []

    def while_planning(*args, **kwargs):
        planning.append(True)
        try:
            return plan_module.plan_of(*args, **kwargs)
        finally:
            planning.pop()

    def guarded(name, lookup):
        def call(*args, **kwargs):
            if not planning:
                outside.append((name, args))
            return lookup(*args, **kwargs)

        return call

    modules = [tabprobe.probes] + [
        importlib.import_module(f"tabprobe.report.{m.name}") for m in pkgutil.iter_modules(tabprobe.report.__path__)
    ]
    patched = 0
    for module in modules:
        for name in REGISTRY_LOOKUPS:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, guarded(name, getattr(module, name)))
                patched += 1
    monkeypatch.setattr(assemble_module, "plan_of", while_planning)
    scores, run = tabfact_run()
    built = assemble(scores, run)
    assert "TabFact" in built.markdown and patched >= 5
    assert outside == []
    # The guard sees a lookup made outside the plan.
    tabprobe.probes.get_probe("tf_original")
    assert outside == [("get_probe", ("tf_original",))]


def test_no_drop_after_deleting_needed_records_counts_only_where_a_drop_could_show():
    """A model that keeps every answer loses about half its lead over the majority class when the
    records its statement needs are deleted: at 62% against a 60% majority, no drop says nothing."""
    weak = [r for r in reads_its_table("m") if r["probe"] != "tf_original"] + original("m", (62.0, 59.0, 65.0))
    verdict = own_verdicts.own_verdict(part_of(Index(frame(weak)), "tabfact"), "m", ModelFacts(premise="para"), None)
    rows = verdict.findings[1]
    assert rows.answer == CANNOT_TELL
    assert "leads the majority class too little for a drop to show" in rows.numbers[0].reading
    strong = own_verdicts.own_verdict(
        part_of(Index(frame(reads_its_table("m"))), "tabfact"), "m", ModelFacts(premise="para"), None
    )
    assert [f.answer for f in strong.findings] == [YES, YES, NO, NO]


def test_the_hypothesis_only_model_at_the_majority_class_is_the_finding_not_a_failed_training():
    scores = part_of(Index(frame(original("h", (60.5, 58.0, 62.5)))), "tabfact")
    verdict = own_verdicts.own_verdict(scores, "h", ModelFacts(premise="hypothesis_only"), None)
    assert verdict.unreadable is None
    assert [f.answer for f in verdict.findings][:3] == [DOES_NOT_APPLY, DOES_NOT_APPLY, NO]
    blind = own_verdicts.own_verdict(scores, "h", ModelFacts(premise="para"), None)
    assert blind.unreadable == "at chance" and "majority class (60.0%)" in blind.caveats[0]


def test_a_model_that_gives_every_statement_one_answer_is_read_as_not_learned():
    import polars as pl

    from tabprobe import schemas
    from tabprobe.report.own_verdicts import answers_one_label

    def cell(model, label, mean):
        return {"model": model, "probe": "tf_original", "split": "simple_test", "dataset": "tabfact",
                "statistic": "accuracy", "label": label, "mean": mean, "std": 0.0, "ci_low": mean,
                "ci_high": mean, "n": 150, "paper": None}  # fmt: skip

    rows = [
        cell("collapsed", "E", 100.0),
        cell("collapsed", "C", 0.0),
        cell("reads", "E", 80.0),
        cell("reads", "C", 40.0),
    ]
    scores = part_of(Index(pl.from_arrow(pl.DataFrame(rows).to_arrow().cast(schemas.RESULTS))), "tabfact")
    assert answers_one_label(scores, "collapsed", "simple_test")
    assert not answers_one_label(scores, "reads", "simple_test")
