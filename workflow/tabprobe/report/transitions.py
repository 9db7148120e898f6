"""A table probe judged by transitions (paper section 5.1), for any dataset's part: per model, its
invalid transitions by the label it predicted before, beside the share of predictions that did not
move; its transition graph and matrix; the invalid share among the examples whose input changed;
and its failing examples. Labels and their names are the part's dataset's (ENTAILED / REFUTED over
two labels); the paper's numbers stand under each cell where the probe declares some."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tabprobe.data.datasets import paper_dataset
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.probes import Probe
from tabprobe.probes.transitions import TransitionRule
from tabprobe.report import figures, verdict_terms
from tabprobe.report.blocks import Figure, Section, Stat, TableBlock
from tabprobe.report.dimensions import dimension_of
from tabprobe.report.evidence import relevance_note
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring.results import Index


@dataclass(frozen=True)
class View:
    """One probe of a part, as its tables read it: its rule's labels, the part's names for them,
    and the run's splits where the probe has scores."""

    scores: Index
    run: RunInfo
    name: str
    probe: Probe
    splits: list[str]

    @property
    def rule(self) -> TransitionRule:
        return self.probe.transition_rule

    @property
    def labels(self) -> tuple[str, ...]:
        return self.rule.labels

    @property
    def names(self) -> Mapping[str, str]:
        return self.run.plan.dataset.label_names

    def get(self, model: str, split: str, statistic: str, label: str = "all") -> dict | None:
        return self.scores.get(model=model, probe=self.name, split=split, statistic=statistic, label=label)


def view_of(scores: Index, run: RunInfo, probe_name: str) -> View:
    return View(scores, run, probe_name, run.plan.probe(probe_name), run.shown_splits([probe_name]))


def invalid_transition_section(scores: Index, run: RunInfo, probe_name: str) -> Section:
    """One table probe's invalid transitions, per model of the part `run` is: beside the share of
    predictions that did not move, with its transition graph and matrix and failing examples."""
    view = view_of(scores, run, probe_name)
    reference = view.probe.paper_numbers.as_reference() if view.probe.paper_numbers else None
    title = f"Probe `{probe_name}`: invalid transitions"
    if reference:
        title += f" (paper {reference['table']} layout)"
    section = Section(title)
    section.blocks += _intro(view, reference)
    for model, info in run.models.items():
        section.blocks += _caveats(run, model, info, with_paper=reference is not None)
        section.blocks.append(_invalid_transition_table(view, model, reference))
        section.blocks.append(transition_graph_figure(view, model))
        visible = visible_perturbations_block(view, model)
        if visible:
            section.blocks.append(visible)
        section.blocks.append(transition_matrix_block(view, model))
        section.blocks += run.examples_of([probe_name], [model])
    return section


def _intro(view: View, reference: dict | None) -> list[str]:
    """How to read the probe's tables, its valid transitions and, where it needs them, where the
    relevant rows come from."""
    rule, names = view.rule, view.names
    must_move = " and ".join(names[lab] for lab in view.labels if lab not in rule.allowed[lab])
    blocks = [
        f"{view.probe.description} Percentage of invalid transitions by the label the model originally "
        "predicted: invalid transitions / examples originally predicted with that label. Lower is better only "
        "for a model that reads its table: one that ignores it never moves and scores zero here, so read these "
        "beside the share of predictions that did not move at all (the rows under each table)"
        + (
            f", and here staying put is itself the failure: the rule demands a move from {must_move}"
            if must_move
            else ""
        )
        + ". Cells: mean (std) over the samplings"
        + ("; the paper's RoBERTa-large number is given under each cell." if reference else ".")
    ]
    allowed = "; ".join(f"{names[lab]} → {rule.allowed_after(lab, names)}" for lab in view.labels)
    blocks.append(f"Valid transitions ({rule.source}): {allowed}.")
    if "relevance" in view.probe.needs:
        blocks.append(relevance_note(view.run))
    if view.run.plan.has_neutral_answers(view.run.models) and "N" not in view.labels:
        blocks.append(
            f"A three-way ({paper_dataset().title}) model's NEUTRAL answers are read as {names['C']}, before and "
            "after the edit; the rows under its table give their share of all its answers."
        )
    return blocks


def _caveats(run: RunInfo, model: str, info: dict, with_paper: bool) -> list[str]:
    """Why a model's few invalid transitions may say nothing of its reasoning: it never sees its
    table, does not use it, or had premises cut (`with_paper`: the probe's table stands beside the
    paper's full-length numbers)."""
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
            "row past the cut is invisible to it, which lowers its invalid-transition numbers"
            + ("; compare with the paper's (full-length) numbers with that in mind." if with_paper else ".")
        )
    return blocks


def _invalid_transition_table(view: View, model: str, reference: dict | None) -> TableBlock:
    """The model's invalid transitions by predicted label and split, their averages, and the
    shares of predictions that did not move (and, where the rule demands a move, stayed put)."""
    # Our mean (std) per label and split, and the paper's value where it has one; averages
    # over labels and over splits are both taken from these two grids.
    splits, labels = view.splits, view.labels
    ours = {lab: {split: view.get(model, split, "invalid_transition_pct", lab) for split in splits} for lab in labels}
    paper_values = {
        lab: {split: reference["values"][lab].get(split) if reference else None for split in splits} for lab in labels
    }
    rows = []
    for lab in labels:
        cells = [view.names[lab]]
        for split in splits:
            cells.append(Stat.of(ours[lab][split], paper=paper_values[lab][split]))
        cells.append(
            Stat(_mean(r["mean"] if r else None for r in ours[lab].values()), paper=_mean(paper_values[lab].values()))
        )
        rows.append(cells)
    averages = ["Average"]
    for split in splits:
        our_mean = _mean(ours[lab][split]["mean"] if ours[lab][split] else None for lab in labels)
        averages.append(Stat(our_mean, paper=_mean(paper_values[lab][split] for lab in labels)))
    rows.append(averages + [""])
    rows += _did_not_move_rows(view, model)
    return TableBlock(
        ["Predicted label", *splits, "Average"],
        rows,
        caption=f"Model {model} (invalid transitions: lower is better "
        "when the predictions move where the table changes)",
    )


def _did_not_move_rows(view: View, model: str) -> list[list]:
    """The share of predictions that did not move; where the rule demands a move, the share that
    stayed put anyway; and a three-way model's NEUTRAL answers where its dataset has none."""
    splits = view.splits
    rows = [
        ["Did not move at all (% of all predictions)"] + [Stat.of(view.get(model, s, "unchanged_pct")) for s in splits]
    ]
    if view.rule.demands_a_move:
        rows.append(
            ["Stayed put where the rule demands a move (%): the failure here"]
            + [Stat.of(view.get(model, s, "unchanged_where_required_pct")) for s in splits]
        )
    neutral = {
        when: [Stat.of(view.get(model, s, f"neutral_answers_pct_{when}")) for s in splits]
        for when in ("before", "after")
    }
    # Only a model that said NEUTRAL at all: a two-label head's shares are 0 by construction.
    if any(c.mean for cells in neutral.values() for c in cells):
        rows += [[f"NEUTRAL answers {when} the edit (% of all answers)", *cells] for when, cells in neutral.items()]
    return [row + [""] for row in rows]


def transition_graph_figure(view: View, model: str) -> Figure:
    percent = {
        (before, after): [
            r["mean"] if (r := view.get(model, split, f"transition_pct_to_{after}", before)) else None
            for split in view.splits
        ]
        for before in view.labels
        for after in view.labels
    }
    reference = view.probe.paper_numbers.as_reference() if view.probe.paper_numbers else None
    figure = f"; the paper's version is its {reference['figure']}" if reference and reference.get("figure") else ""
    return Figure(
        figures.transition_graph(percent, view.rule, view.splits, f"{view.name} · {model}", view.names),
        f"Model {model}: how predictions move under {view.name} (mean over the samplings){figure}. "
        "Red dashed edges are invalid transitions.",
        path=f"{dimension_of(view.probe)}/{model}/{view.name}.svg",
    )


def visible_perturbations_block(view: View, model: str) -> TableBlock | None:
    """Invalid % over the examples whose model input changed. A table edit past the model's
    max_length cut never reaches it; such examples keep their prediction and count as valid in
    the paper-comparable numbers above. None when every (or no) perturbation reached the model."""
    shares = {split: view.get(model, split, "input_changed_pct") for split in view.splits}
    present = [r["mean"] for r in shares.values() if r and r["mean"] is not None]
    if not present or all(v >= 100.0 for v in present) or all(v <= 0.0 for v in present):
        return None
    rows = []
    for lab in (*view.labels, "all"):
        cells = [view.names.get(lab, "All predictions")]
        cells += [Stat.of(view.get(model, split, "invalid_transition_pct_input_changed", lab)) for split in view.splits]
        rows.append(cells)
    rows.append(["Examples whose input changed (%)"] + [Stat.of(shares[s]) for s in view.splits])
    return TableBlock(
        ["Predicted label", *view.splits],
        rows,
        caption=f"Model {model}: invalid transitions (%) among the examples whose model input changed "
        "(the perturbation was not cut off by max_length)",
    )


def transition_matrix_block(view: View, model: str) -> TableBlock:
    header = ["Before → after"] + [f"{split}: → {to}" for split in view.splits for to in view.labels]
    rows = []
    for lab in view.labels:
        cells = [view.names[lab]]
        for split in view.splits:
            for to in view.labels:
                r = view.get(model, split, f"transition_pct_to_{to}", lab)
                cells.append(Stat(r["mean"] if r else None))  # the means only: the graph's numbers, in a grid
        rows.append(cells)
    return TableBlock(header, rows, caption=f"Model {model}: transition matrix, % of each original prediction")


def _mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that exist; None when none does."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None
