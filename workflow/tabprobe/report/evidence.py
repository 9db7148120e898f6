"""Evidence selection (paper section 5): the transition rules, where the relevant rows come from,
and the model's own evidence against them. Each table probe's invalid transitions are
report.transitions', the writer every dataset's part shares."""

from __future__ import annotations

from collections.abc import Sequence

from tabprobe import LABELS
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index


def relevance_note(run: RunInfo) -> str:
    """Which relevance source the evidence numbers rest on, per split, and how much it covers."""
    if not run.relevance:
        return "Relevance source: none in this run."
    parts = [
        f"{split}: {r['source']} ({r['with_relevant_rows']} of {r['examples']} examples have relevant rows"
        + (f"; {r['not_annotated']} not annotated" if r.get("not_annotated") else "")
        + ")"
        for split, r in sorted(run.relevance.items())
    ]
    aligner = any(r["source"] == "aligner" for r in run.relevance.values())
    return (
        "Relevance source (which rows a hypothesis needs): "
        + "; ".join(parts)
        + "."
        + (
            " The aligner matches hypothesis words, stems, numbers and dates with row keys and values; its "
            "row precision and recall on a hand-checked gold set of 300 alpha1 pairs are in docs/relevance.md "
            "(bench/relevance.py). The paper used crowd annotations: where the aligner errs, relevant-row "
            "numbers mix in irrelevant rows and the reverse."
            if aligner
            else ""
        )
    )


EVIDENCE_ROWS = [
    ("Precision (per example; none selected = 0)", "evidence_precision", "macro"),
    ("Recall (per example)", "evidence_recall", "macro"),
    ("Precision (pooled rows)", "evidence_precision", "micro"),
    ("Recall (pooled rows)", "evidence_recall", "micro"),
    ("Uses all relevant rows (%)", "uses_all_relevant_pct", "all"),
    ("Uses some relevant rows (%)", "uses_some_relevant_pct", "all"),
    ("Uses wrong or no rows (%)", "uses_wrong_or_no_rows_pct", "all"),
    ("… of which no row at all: ignores the table (%)", "ignores_table_pct", "all"),
    ("Correct on the original (%)", "original_accuracy", "all"),
    ("Correct and uses all relevant rows (%)", "uses_all_relevant_pct", "correct"),
    ("Correct and uses some (%)", "uses_some_relevant_pct", "correct"),
    ("Correct from wrong or no rows (%)", "uses_wrong_or_no_rows_pct", "correct"),
]


def evidence_section(scores: Index, run: RunInfo) -> Section | None:
    """Paper sections 5.2-5.3: the relevance source, then the model's own evidence selection."""
    evidence_probes = [
        p for p in run.probes if "relevance" in run.plan.probe(p).needs or run.plan.probe(p).judged_by == "evidence"
    ]
    if not evidence_probes:
        return None
    section = Section("Evidence: relevant rows and the model's own evidence (paper sections 5.2-5.3)")
    section.blocks.append(relevance_note(run))
    selection = [p for p in evidence_probes if run.plan.probe(p).judged_by == "evidence"]
    if any(run.plan.probe(p).judged_by == "transitions" for p in evidence_probes):
        section.blocks.append(run.plan.dataset.report.texts["row_deletions"])
    for probe_name in selection:
        section.blocks.append(
            f"`{probe_name}`: each row of the table is deleted in turn; the rows whose deletion alone changes the "
            "model's prediction are the evidence it uses, compared with the relevant rows of ENTAIL/CONTRADICT "
            "examples that have any (as in the paper). Cells: mean (std) over the samplings of gold examples; "
            "the paper's RoBERTa-large numbers (4,600 human-annotated dev/test pairs) in the last column."
        )
        splits = scores.splits_with([probe_name])
        header = ["Statistic"] + [f"{m} · {s}" for m in run.models for s in splits] + ["paper"]
        rows = []
        for title, statistic, label in EVIDENCE_ROWS:
            cells = [title]
            for model in run.models:
                for split in splits:
                    cells.append(
                        Stat.of(
                            scores.get(model=model, probe=probe_name, split=split, statistic=statistic, label=label)
                        )
                    )
            reference = paper.EVIDENCE_SELECTION.get((statistic, label))
            rows.append(cells + [Stat.reference(reference)])
        section.blocks.append(TableBlock(header, rows, caption=f"Model evidence selection ({probe_name})"))
        for model, info in run.models.items():
            if info["premise"] == HYPOTHESIS_ONLY:
                section.blocks.append(f"Model {model} never sees the table: it ignores it by construction.")
        section.blocks += run.examples_of([probe_name])
    return section


def transition_rules_section(run: RunInfo, probe_names: Sequence[str]) -> Section:
    section = Section("Transition rules")
    section.blocks.append(
        "A table perturbation has no single right answer; it allows some changes of prediction and "
        "forbids others. Each row lists the labels a model may predict after the change, given its "
        "prediction before; any other prediction is an invalid transition. The paper states most of "
        "these rules; where it names only some forbidden transitions, the rule is this project's "
        "reading of it, marked as such."
    )
    rows = []
    for name in probe_names:
        rule = run.plan.probe(name).transition_rule
        rows.append(
            [name]
            + [", ".join(lab for lab in LABELS if lab in rule.allowed[before]) for before in LABELS]
            + [rule.source]
        )
    section.blocks.append(TableBlock(["Probe", "from E", "from N", "from C", "Source of the rule"], rows))
    return section
