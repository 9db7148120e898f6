"""Evidence selection (paper section 5): the transition rules, each table probe's invalid
transitions beside the share of predictions that did not move, its transition graph and matrix,
and the model's own evidence against the relevant rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabprobe import LABEL_NAMES, LABELS
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.probes import Probe
from tabprobe.probes.transitions import TransitionRule
from tabprobe.report import figures, verdict_terms
from tabprobe.report.blocks import Figure, Section, Stat, TableBlock
from tabprobe.report.dimensions import dimension_of
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


def invalid_transition_section(scores: Index, run: RunInfo, probe_name: str) -> Section:
    """One table probe's invalid transitions (paper section 5), per model: beside the share of
    predictions that did not move, with its transition graph and matrix and failing examples."""
    probe = run.plan.probe(probe_name)
    rule = probe.transition_rule
    reference = probe.paper_numbers.as_reference() if probe.paper_numbers else None
    title = f"Probe `{probe_name}`: invalid transitions"
    if reference:
        title += f" (paper {reference['table']} layout)"
    section = Section(title)
    section.blocks += _invalid_transition_intro(run, probe, rule, reference)
    for model, info in run.models.items():
        section.blocks += _invalid_transition_caveats(run, model, info)
        section.blocks.append(_invalid_transition_table(scores, run, model, probe_name, rule, reference))
        section.blocks.append(transition_graph_figure(scores, run, model, probe_name))
        visible = visible_perturbations_block(scores, run, model, probe_name)
        if visible:
            section.blocks.append(visible)
        section.blocks.append(transition_matrix_block(scores, run, model, probe_name))
        section.blocks += run.examples_of([probe_name], [model])
    return section


def _demands_a_move(rule: TransitionRule) -> bool:
    """Whether the rule forbids some label from staying put (staying is then itself a failure)."""
    return any(lab not in rule.allowed[lab] for lab in LABELS)


def _invalid_transition_intro(run: RunInfo, probe: Probe, rule: TransitionRule, reference: dict | None) -> list[str]:
    """How to read the probe's tables, its valid transitions and, where it needs them, where the
    relevant rows come from."""
    blocks = [
        f"{probe.description} Percentage of invalid transitions by the label the model originally "
        "predicted: invalid transitions / examples originally predicted with that label. Lower is better only "
        "for a model that reads its table: one that ignores it never moves and scores zero here, so read these "
        "beside the share of predictions that did not move at all (the rows under each table)"
        + (
            ", and here staying put is itself the failure: the rule demands a move from ENTAIL and CONTRADICT"
            if _demands_a_move(rule)
            else ""
        )
        + ". Cells: mean (std) over the samplings"
        + ("; the paper's RoBERTa-large number is given under each cell." if reference else ".")
    ]
    allowed = "; ".join(f"{LABEL_NAMES[lab]} → {rule.allowed_after(lab)}" for lab in LABELS)
    blocks.append(f"Valid transitions ({rule.source}): {allowed}.")
    if "relevance" in probe.needs:
        blocks.append(relevance_note(run))
    return blocks


def _invalid_transition_caveats(run: RunInfo, model: str, info: dict) -> list[str]:
    """Why a model's few invalid transitions may say nothing of its reasoning: it never sees its
    table, does not use it, or had premises cut."""
    blocks = []
    verdict = run.verdicts.get(model)
    if info["premise"] == HYPOTHESIS_ONLY:
        blocks.append(
            f"Model {model} never sees the table, so its predictions cannot change with it: zero "
            "invalid transitions here are guaranteed by construction and say nothing about reasoning."
        )
    elif verdict and verdict.finding(verdict_terms.USES_TABLE).answer == verdict_terms.NO:
        blocks.append(
            f"Model {model} does not use its table (see Verdicts): its invalid transitions are few because its "
            "predictions do not move, not because it reasons by the rule."
        )
    if info["premise"] != HYPOTHESIS_ONLY and info.get("truncated"):
        share = 100 * info["truncated"] / max(info["examples"], 1)
        blocks.append(
            f"Model {model} had {share:.0f}% of its premises cut to its max_length: a change to a "
            "row past the cut is invisible to it, which lowers its invalid-transition numbers; "
            "compare with the paper's (full-length) numbers with that in mind."
        )
    return blocks


def _invalid_transition_table(
    scores: Index, run: RunInfo, model: str, probe_name: str, rule: TransitionRule, reference: dict | None
) -> TableBlock:
    """The model's invalid transitions by predicted label and split, their averages, and the
    shares of predictions that did not move (and, where the rule demands a move, stayed put)."""
    # Our mean (std) per label and split, and the paper's value where it has one; averages
    # over labels and over splits are both taken from these two grids.
    ours = {
        lab: {
            split: scores.get(model=model, probe=probe_name, split=split, statistic="invalid_transition_pct", label=lab)
            for split in run.splits
        }
        for lab in LABELS
    }
    paper_values = {
        lab: {split: reference["values"][lab].get(split) if reference else None for split in run.splits}
        for lab in LABELS
    }

    header = ["Predicted label"] + run.splits + ["Average"]
    rows = []
    for lab in LABELS:
        cells = [LABEL_NAMES[lab]]
        for split in run.splits:
            cells.append(Stat.of(ours[lab][split], paper=paper_values[lab][split]))
        cells.append(
            Stat(_mean(r["mean"] if r else None for r in ours[lab].values()), paper=_mean(paper_values[lab].values()))
        )
        rows.append(cells)
    averages = ["Average"]
    for split in run.splits:
        our_mean = _mean(ours[lab][split]["mean"] if ours[lab][split] else None for lab in LABELS)
        averages.append(Stat(our_mean, paper=_mean(paper_values[lab][split] for lab in LABELS)))
    rows.append(averages + [""])
    rows += _did_not_move_rows(scores, run, model, probe_name, rule)
    return TableBlock(
        header,
        rows,
        caption=f"Model {model} (invalid transitions: lower is better "
        "when the predictions move where the table changes)",
    )


def _did_not_move_rows(scores: Index, run: RunInfo, model: str, probe_name: str, rule: TransitionRule) -> list[list]:
    """The share of predictions that did not move, and where the rule demands a move, the share
    that stayed put anyway."""
    stayed = {
        split: scores.get(model=model, probe=probe_name, split=split, statistic="unchanged_pct", label="all")
        for split in run.splits
    }
    rows = [["Did not move at all (% of all predictions)"] + [Stat.of(stayed[s]) for s in run.splits] + [""]]
    if _demands_a_move(rule):
        rows.append(
            ["Stayed put where the rule demands a move (%): the failure here"]
            + [
                Stat.of(
                    scores.get(
                        model=model,
                        probe=probe_name,
                        split=s,
                        statistic="unchanged_where_required_pct",
                        label="all",
                    )
                )
                for s in run.splits
            ]
            + [""]
        )
    return rows


def transition_graph_figure(scores: Index, run: RunInfo, model: str, probe_name: str) -> Figure:
    probe = run.plan.probe(probe_name)
    rule = probe.transition_rule
    percent = {}
    for before in LABELS:
        for after in LABELS:
            values = []
            for split in run.splits:
                r = scores.get(
                    model=model, probe=probe_name, split=split, statistic=f"transition_pct_to_{after}", label=before
                )
                values.append(r["mean"] if r else None)
            percent[(before, after)] = values
    reference = probe.paper_numbers.as_reference() if probe.paper_numbers else None
    figure = f"; the paper's version is its {reference['figure']}" if reference and reference.get("figure") else ""
    return Figure(
        figures.transition_graph(percent, rule, run.splits, f"{probe_name} · {model}"),
        f"Model {model}: how predictions move under {probe_name} (mean over the samplings){figure}. "
        "Red dashed edges are invalid transitions.",
        path=f"{dimension_of(probe)}/{model}/{probe_name}.svg",
    )


def visible_perturbations_block(scores: Index, run: RunInfo, model: str, probe_name: str) -> TableBlock | None:
    """Invalid % over the examples whose model input changed. A table edit past the model's
    max_length cut never reaches it; such examples keep their prediction and count as valid in
    the paper-comparable numbers above. None when every (or no) perturbation reached the model."""
    shares = {
        split: scores.get(model=model, probe=probe_name, split=split, statistic="input_changed_pct", label="all")
        for split in run.splits
    }
    present = [r["mean"] for r in shares.values() if r and r["mean"] is not None]
    if not present or all(v >= 100.0 for v in present) or all(v <= 0.0 for v in present):
        return None
    rows = []
    for lab in LABELS + ("all",):
        cells = [LABEL_NAMES.get(lab, "All predictions")]
        for split in run.splits:
            r = scores.get(
                model=model, probe=probe_name, split=split, statistic="invalid_transition_pct_input_changed", label=lab
            )
            cells.append(Stat.of(r))
        rows.append(cells)
    rows.append(["Examples whose input changed (%)"] + [Stat.of(shares[s]) for s in run.splits])
    return TableBlock(
        ["Predicted label"] + run.splits,
        rows,
        caption=f"Model {model}: invalid transitions (%) among the examples whose model input changed "
        "(the perturbation was not cut off by max_length)",
    )


def transition_matrix_block(scores: Index, run: RunInfo, model: str, probe_name: str) -> TableBlock:
    header = ["Before → after"] + [f"{split}: → {to}" for split in run.splits for to in LABELS]
    rows = []
    for lab in LABELS:
        cells = [LABEL_NAMES[lab]]
        for split in run.splits:
            for to in LABELS:
                r = scores.get(
                    model=model, probe=probe_name, split=split, statistic=f"transition_pct_to_{to}", label=lab
                )
                cells.append(Stat(r["mean"] if r else None))  # the means only: the graph's numbers, in a grid
        rows.append(cells)
    return TableBlock(header, rows, caption=f"Model {model}: transition matrix, % of each original prediction")


def _mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that exist; None when none does."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None
