"""The final report: what goes in it, section by section (rendered by `report_render`).

The verdicts first (does each model use its table, the right rows, hypothesis artifacts,
memorised knowledge: `verdicts`), the scorecard of the numbers that decide them, a summary of
how each model's accuracy moves under each probe, then one part per dimension of the paper:
annotation artifacts (section 4), evidence selection (section 5), counterfactuals (section 6),
and the numeric and external probes; each holds this run's version of the paper's tables beside the paper's numbers, the transition graphs, and a
few failing examples of each probe with the change marked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import polars as pl

from . import LABEL_NAMES, LABELS, figures, paper, report_render, schemas, verdicts
from .infotabs import SPLITS
from .io import read_parquet
from .probes import get_probe, pooled_members
from .report_blocks import Alert, ExamplesBlock, Figure, Section, Stat, TableBlock, VerdictBlock
from .report_layout import DIMENSION_INTROS, DIMENSIONS, SHOWCASE_ORDER, dimension_of
from .results import lookup as _lookup
from .transitions import RULES


@dataclass
class RunInfo:
    """What the report needs to know about the run beyond the scores."""

    splits: list[str]
    probes: list[str]
    models: dict[str, dict]  # name -> {premise, checkpoint, meta, fingerprint, truncated...}
    data_source: str
    seed: int
    scoring: dict
    coverage: list[dict]  # one per probe and split, with its cap (`limit`)
    relevance: dict[str, dict] = field(default_factory=dict)  # split -> find_relevant_rows summary
    # experiment -> score_inoculation's summary (chosen learning rate per size...), and the plan
    inoculation: dict[str, dict] = field(default_factory=dict)
    inoculation_plan: dict | None = None
    variance: dict[str, dict] = field(default_factory=dict)  # model -> score_variance's summary
    unverified_flips: str = "exclude"  # whether label flips nobody checked are scored (tabprobe.curation)
    # (probe, model) -> a few failing examples, shown under the probe's numbers
    examples: dict[tuple[str, str], ExamplesBlock] = field(default_factory=dict)
    verdicts: dict[str, verdicts.Verdict] = field(default_factory=dict)  # model -> what the run says of it

    def examples_of(self, probe_names: Iterable[str], models: Iterable[str] | None = None) -> list[ExamplesBlock]:
        return [self.examples[(p, m)] for p in probe_names for m in (models or self.models) if (p, m) in self.examples]


def _mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that exist; None when none does."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _splits_with(scores: pl.DataFrame, probe_names: Iterable[str]) -> list[str]:
    """The splits (in SPLITS order) where any of the probes has scores."""
    present = set(scores.filter(pl.col("probe").is_in(list(probe_names)))["split"].to_list())
    return [s for s in SPLITS if s in present]


def accuracy_section(scores: pl.DataFrame, run: RunInfo) -> Section:
    section = Section("Accuracy on the unperturbed splits (probe `original`)")
    section.blocks.append(
        "Mean (standard deviation) of accuracy over "
        f"{run.scoring['samplings']} samplings of {run.scoring['fraction']:.0%} of the examples, "
        f"and a {run.scoring['confidence']:.0%} percentile bootstrap interval "
        f"({run.scoring['bootstrap']} resamples). Paper Table 1 (RoBERTa-large) for reference."
    )
    header = ["Model"] + [f"{s}" for s in run.splits]
    rows = []
    for model in run.models:
        cells = [model]
        for split in run.splits:
            r = _lookup(scores, model=model, probe="original", split=split, statistic="accuracy", label="all")
            cells.append(Stat.of(r))
        rows.append(cells)
    for name, values in paper.TABLE1_ACCURACY.items():
        rows.append([f"paper: {name}"] + [Stat.reference(values.get(s)) for s in run.splits])
    section.blocks.append(TableBlock(header, rows))
    gaps = []
    for model, info in run.models.items():
        reference = "Hypothesis only" if info["premise"] == "hypothesis_only" else "RoBERTa-large (premise + hypothesis)"
        diffs = []
        for split in run.splits:
            r = _lookup(scores, model=model, probe="original", split=split, statistic="accuracy", label="all")
            ref = paper.TABLE1_ACCURACY[reference].get(split)
            if r and r["mean"] is not None and ref is not None:
                diffs.append(f"{split} {r['mean'] - ref:+.1f}")
        if diffs:
            gaps.append(f"{model} vs paper {reference}: {', '.join(diffs)} points")
    if gaps:
        section.blocks.append("Gap to the paper's Table 1 (majority baseline: 33.3): " + "; ".join(gaps) + ".")
    return section




def pooled_table_blocks(scores: pl.DataFrame, run: RunInfo, table: str, reference: dict) -> list[TableBlock]:
    """Paper Table 4 or 7 per split: accuracy on the gold examples (w/o NEUTRAL) and on one sampled
    label-preserving / label-flipping edit per gold example, with the paired drops, and the
    paper's rows beneath."""
    members = pooled_members(table, run.probes)
    columns = list(members)
    names = [f"{table}:{c}" for c in columns]
    splits = _splits_with(scores, names)
    blocks = []
    for split in splits:
        rows = []
        for model in run.models:
            original = _lookup(scores, model=model, probe="original", split=split, statistic="accuracy", label="EC")
            cells = [model, Stat.of(original)]
            for name in names:
                cells.append(Stat.of(_lookup(scores, model=model, probe=name, split=split, statistic="accuracy", label="all")))
            for name in names:
                cells.append(Stat.of(_lookup(scores, model=model, probe=name, split=split, statistic="accuracy_drop", label="all"), signed=True))
            rows.append(cells)
        for name, values in reference.get(split, {}).items():
            rows.append([f"paper: {name}"] + [Stat.reference(values[k]) for k in ("original", *columns)] + ["", ""])
        blocks.append(TableBlock(
            ["Model", "Original (w/o NEUTRAL)", "Label preserved", "Label flipped",
             "Drop, preserved (paired, 95% CI)", "Drop, flipped (paired, 95% CI)"],
            rows, caption=f"Split {split}"))
    return blocks


def artifacts_section(scores: pl.DataFrame, run: RunInfo) -> Section | None:
    """Paper Table 4: accuracy on the gold examples (w/o NEUTRAL) and on one sampled
    label-preserving / label-flipping hypothesis edit per gold example."""
    members = pooled_members("table4", run.probes)
    if not any(members.values()):
        return None
    section = Section("Annotation artifacts: hypothesis edits (paper section 4, Table 4)")
    section.blocks.append(
        "Original: accuracy of probe `original` on the gold ENTAIL and CONTRADICT examples (NEUTRAL is "
        "not perturbed, as in the paper). Label preserved / flipped: one edited hypothesis per gold "
        "example, sampled (seeded) from all the probes of that column that could edit it: "
        f"preserved = {', '.join(f'`{p}`' for p in members['label_preserved']) or 'none'}; "
        f"flipped = {', '.join(f'`{p}`' for p in members['label_flipped']) or 'none'}. Cells: mean (std) over "
        "the samplings and the number of examples. A model that reads the evidence keeps its accuracy "
        "in both columns; one that leans on the hypothesis's form keeps it when the label is preserved "
        "and loses it when the label flips. The paper's RoBERTa-large numbers are listed under each table "
        "(it generated 2,891 edits of alpha1 hypotheses, 1,203 preserving and 1,688 flipping the label, and "
        "11,550 of train, partly by hand, and sampled one per gold example: 967 from alpha1, 4,274 from "
        "train; this run's counts are the n of each cell, its reasons for skipping in Probe coverage)."
    )
    section.blocks += pooled_table_blocks(scores, run, "table4", paper.TABLE4)
    note = curation_note(run, [p for c in members for p in members[c]])
    if note:
        section.blocks.append(note)
    section.blocks.append(DROP_EXPLAINED)
    section.blocks.append(probe_accuracy_table(scores, run, [p for c in members for p in members[c]],
                                               "Per probe: accuracy against the expected label; drop from the same gold examples unperturbed "
                                               "(lower is better)"))
    section.blocks += run.examples_of(p for c in members for p in members[c])
    return section


def relevance_note(run: RunInfo) -> str:
    """Which relevance source the evidence numbers rest on, per split, and how much it covers."""
    if not run.relevance:
        return "Relevance source: none in this run."
    parts = [f"{split}: {r['source']} ({r['with_relevant_rows']} of {r['examples']} examples have relevant rows"
             + (f"; {r['not_annotated']} not annotated" if r.get("not_annotated") else "") + ")"
             for split, r in sorted(run.relevance.items())]
    aligner = any(r["source"] == "aligner" for r in run.relevance.values())
    return ("Relevance source (which rows a hypothesis needs): " + "; ".join(parts) + "."
            + (" The aligner matches hypothesis words, stems, numbers and dates with row keys and values; its "
               "row precision and recall on a hand-checked gold set of 300 alpha1 pairs are in the README "
               "(bench/relevance.py). The paper used crowd annotations: where the aligner errs, relevant-row "
               "numbers mix in irrelevant rows and the reverse." if aligner else ""))


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


def evidence_section(scores: pl.DataFrame, run: RunInfo) -> Section | None:
    """Paper sections 5.2-5.3: the relevance source, then the model's own evidence selection."""
    evidence_probes = [p for p in run.probes if get_probe(p).needs_relevance or get_probe(p).judged_by == "evidence"]
    if not evidence_probes:
        return None
    section = Section("Evidence: relevant rows and the model's own evidence (paper sections 5.2-5.3)")
    section.blocks.append(relevance_note(run))
    selection = [p for p in evidence_probes if get_probe(p).judged_by == "evidence"]
    if any(get_probe(p).judged_by == "transitions" for p in evidence_probes):
        section.blocks.append("Deleting the relevant rows (`relevant_row_deletion`, paper Figure 4 / Table 6) must "
                              "turn every prediction NEUTRAL; deleting an irrelevant row (`irrelevant_row_deletion`, "
                              "Figure 10 / Table 16) must change none. Their invalid-transition tables follow with "
                              "the other table probes.")
    for probe_name in selection:
        section.blocks.append(
            f"`{probe_name}`: each row of the table is deleted in turn; the rows whose deletion alone changes the "
            "model's prediction are the evidence it uses, compared with the relevant rows of ENTAIL/CONTRADICT "
            "examples that have any (as in the paper). Cells: mean (std) over the samplings of gold examples; "
            "the paper's RoBERTa-large numbers (4,600 human-annotated dev/test pairs) in the last column.")
        splits = _splits_with(scores, [probe_name])
        header = ["Statistic"] + [f"{m} · {s}" for m in run.models for s in splits] + ["paper"]
        rows = []
        for title, statistic, label in EVIDENCE_ROWS:
            cells = [title]
            for model in run.models:
                for split in splits:
                    cells.append(Stat.of(_lookup(scores, model=model, probe=probe_name, split=split, statistic=statistic, label=label)))
            reference = paper.EVIDENCE_SELECTION.get((statistic, label))
            rows.append(cells + [Stat.reference(reference)])
        section.blocks.append(TableBlock(header, rows, caption=f"Model evidence selection ({probe_name})"))
        for model, info in run.models.items():
            if info["premise"] == "hypothesis_only":
                section.blocks.append(f"Model {model} never sees the table: it ignores it by construction.")
        section.blocks += run.examples_of([probe_name])
    return section


TABLE8_ROWS = [("✓", "✗", "✗", "100"), ("✗", "✓", "✗", "010"), ("✓", "✗", "✓", "101"), ("✗", "✓", "✓", "011"),
               ("✓", "✓", "✓", "111"), ("✓", "✓", "✗", "110"), ("✗", "✗", "✓", "001"), ("✗", "✗", "✗", "000")]


def counterfactual_section(scores: pl.DataFrame, run: RunInfo) -> Section | None:
    """Paper section 6: Table 7 (accuracy on counterfactuals) and Table 8 (paired correctness)."""
    members = pooled_members("table7", run.probes)
    if not any(members.values()):
        return None
    section = Section("Counterfactuals: does the model read the table or recall the world? (paper section 6, Tables 7-8)")
    section.blocks.append(
        "Tables whose facts no longer match the real world, with hypotheses whose gold label is known. Label "
        "preserved: one counterfactual per gold ENTAIL/CONTRADICT example, sampled (seeded) from "
        f"{', '.join(f'`{p}`' for p in members['label_preserved']) or 'none'}; label flipped: "
        f"{', '.join(f'`{p}`' for p in members['label_flipped']) or 'none (the paper made these by hand; give such a set as an external probe set with label_change: flipped)'}. "
        "A model that reasons from its table keeps its accuracy; one that answers from what it memorised "
        "loses it. " + relevance_note(run))
    section.blocks += pooled_table_blocks(scores, run, "table7", paper.TABLE7)
    section.blocks.append(DROP_EXPLAINED)
    section.blocks.append(probe_accuracy_table(scores, run, [p for c in members for p in members[c]],
                                               "Per probe: accuracy against the expected label; drop from the same gold examples unperturbed"))
    for column in members:
        name = f"table7:{column}"
        for model in run.models:
            splits = [s for s in SPLITS if _lookup(scores, model=model, probe=name, split=s, statistic="paired_correctness_pct", label="111")]
            if not splits:
                continue
            rows = []
            for cf, orig, hypo, cell in TABLE8_ROWS:
                cells = [cf, orig, hypo]
                for split in splits:
                    cells.append(Stat.of(_lookup(scores, model=model, probe=name, split=split, statistic="paired_correctness_pct", label=cell)))
                reference = paper.TABLE8.get(cell, {}) if column == "label_flipped" else {}
                cells += [Stat.reference(reference.get(s)) if reference.get(s) is not None else "" for s in splits]
                rows.append(cells)
            section.blocks.append(TableBlock(
                ["C-THP (counterfactual)", "O-THP (original)", "O-Hypo (hypothesis-only model, original)"]
                + [f"% of examples · {s}" for s in splits] + [f"paper · {s}" for s in splits], rows,
                caption=f"Paper Table 8 layout, {column.replace('_', ' ')} counterfactuals: model {model} on each counterfactual and its "
                        "original, beside the hypothesis-only model on the original (✓ correct, ✗ wrong)"))
    section.blocks += run.examples_of(p for c in members for p in members[c])
    section.blocks.append(
        "Table 8 reading: ✗ ✓ ✗ (right on the original, wrong on its counterfactual, and the hypothesis alone does not "
        "give the answer) points at pre-trained knowledge; ✗ ✓ ✓ at hypothesis artifacts together with it. The paper "
        "lists only the first four rows, on its hand-made label-flipped sets.")
    return section


DROP_EXPLAINED = ("Drop: accuracy of the same gold examples before the edit minus after it, computed on the same "
                  "samplings (a paired comparison; positive = the edit hurt), with a percentile bootstrap interval. "
                  "Input changed: the share of examples whose tokens, as the model saw them, differ from the "
                  "unperturbed example's (an edit to a row cut off past max_length never reaches the model).")


def probe_accuracy_table(scores: pl.DataFrame, run: RunInfo, probe_names: Sequence[str], caption: str,
                         reference: dict[str, dict[str, float]] | None = None) -> TableBlock:
    """One row per probe and model: per split, accuracy against the expected label, the paired
    drop from the unperturbed examples and the share whose model input changed; `reference`
    adds the paper's accuracy."""
    splits = _splits_with(scores, probe_names)
    rows = []
    for probe_name in probe_names:
        for model in run.models:
            cells = []
            for split in splits:
                accuracy = _lookup(scores, model=model, probe=probe_name, split=split, statistic="accuracy", label="all")
                paper_value = (reference or {}).get(probe_name, {}).get(split)
                cells += [Stat.of(accuracy, paper=paper_value),
                          Stat.of(_lookup(scores, model=model, probe=probe_name, split=split, statistic="accuracy_drop", label="all"), signed=True),
                          Stat.of(_lookup(scores, model=model, probe=probe_name, split=split, statistic="input_changed_pct", label="all"))]
            if any(c.mean is not None for c in cells):
                rows.append([probe_name, model] + cells)
    header = ["Probe", "Model"] + [f"{s}: {what}" for s in splits
                                   for what in ("accuracy", "drop (paired, 95% CI)", "input changed (%)")]
    return TableBlock(header, rows, caption=caption)


def family_section(scores: pl.DataFrame, run: RunInfo, family: str) -> Section | None:
    """Premise controls (InfoTabS paper Tables 3-4) or numeric probes: accuracy and paired drop."""
    names = [p for p in run.probes if p != "original" and get_probe(p).family == family
             and (family or get_probe(p).judged_by == "expected")]
    if not names:
        return None
    if family == "premise_control":
        section = Section("Premise controls (InfoTabS paper Tables 3 and 4)")
        section.blocks.append(
            "The hypothesis with no premise (`hypothesis_only`), a constant uninformative table "
            "(`dummy_premise`, 'to be or not to be'), or another table of the split (`swapped_table`), "
            "scored against the gold label. A model that reads its table should fall towards chance "
            "(33.3) and lose more than a model that guesses from the hypothesis. The paper's rows are "
            "RoBERTa-large models *trained* with such premises (InfoTabS Tables 3-4): the accuracy a "
            "premise-free model reaches, the baseline the InfoTabS authors say every model must beat. "
            + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop: here a "
                                                   "larger drop is better, it shows the model reads its premise)",
                                                   reference=paper.PREMISE_CONTROLS))
    elif family == "external":
        section = Section("External probe sets")
        section.blocks.append(
            "Probe sets given as folders in InfoTabS format (config `probes: {name: {external: folder}}`), scored "
            "against their own labels; the paired drop covers the lines paired with a gold example of the split "
            "(see Probe coverage). " + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop)"))
    elif family == "numeric":
        section = Section("Numeric probes")
        section.blocks.append(
            "Rewrites that keep the label (numbers as words, integers as decimals, 'N (not M)' in the "
            "table, distractor numeric rows: numerical-qa-robustness section 4.2) and templated "
            "comparisons whose label a rule computes (diversify-your-datasets section 3), scored "
            "against the expected label. " + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop: lower is "
                                                                       "better, a drop means the rewrite misled it)"))
    else:
        section = Section("Other probes")
        section.blocks.append("Probes judged by an expected label outside the paper's families (a probe of your own, "
                              "say), scored against that label. " + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop)"))
    for name in names:
        section.blocks.append(f"`{name}`: {get_probe(name).description} ({get_probe(name).paper_reference or 'no paper reference'})")
    section.blocks += run.examples_of(names)
    return section


def transition_rules_section(probe_names: Sequence[str]) -> Section:
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
        rule = RULES[get_probe(name).transition_rule]
        rows.append([name] + [", ".join(lab for lab in LABELS if lab in rule.allowed[before]) for before in LABELS]
                    + [rule.source])
    section.blocks.append(TableBlock(["Probe", "from E", "from N", "from C", "Source of the rule"], rows))
    return section


def invalid_transition_section(scores: pl.DataFrame, run: RunInfo, probe_name: str) -> Section:
    probe = get_probe(probe_name)
    rule = RULES[probe.transition_rule]
    reference = paper.INVALID_TRANSITIONS.get(probe_name)
    title = f"Probe `{probe_name}`: invalid transitions"
    if reference:
        title += f" (paper {reference['table']} layout)"
    section = Section(title)
    section.blocks.append(
        f"{probe.description} Percentage of invalid transitions by the label the model originally "
        "predicted: invalid transitions / examples originally predicted with that label. Lower is better only "
        "for a model that reads its table: one that ignores it never moves and scores zero here, so read these "
        "beside the share of predictions that did not move at all (the rows under each table)"
        + (", and here staying put is itself the failure: the rule demands a move from ENTAIL and CONTRADICT"
           if any(lab not in rule.allowed[lab] for lab in LABELS) else "")
        + ". Cells: mean (std) over the samplings"
        + ("; the paper's RoBERTa-large number is given under each cell." if reference else ".")
    )
    allowed = "; ".join(f"{LABEL_NAMES[lab]} → {rule.allowed_after(lab)}" for lab in LABELS)
    section.blocks.append(f"Valid transitions ({rule.source}): {allowed}.")
    if probe.needs_relevance:
        section.blocks.append(relevance_note(run))
    for model, info in run.models.items():
        verdict = run.verdicts.get(model)
        if info["premise"] == "hypothesis_only":
            section.blocks.append(
                f"Model {model} never sees the table, so its predictions cannot change with it: zero "
                "invalid transitions here are guaranteed by construction and say nothing about reasoning."
            )
        elif verdict and verdict.finding(verdicts.USES_TABLE).answer == verdicts.NO:
            section.blocks.append(
                f"Model {model} does not use its table (see Verdicts): its invalid transitions are few because its "
                "predictions do not move, not because it reasons by the rule.")
        if info["premise"] != "hypothesis_only" and info.get("truncated"):
            share = 100 * info["truncated"] / max(info["examples"], 1)
            section.blocks.append(
                f"Model {model} had {share:.0f}% of its premises cut to its max_length: a change to a "
                "row past the cut is invisible to it, which lowers its invalid-transition numbers; "
                "compare with the paper's (full-length) numbers with that in mind."
            )
        # Our mean (std) per label and split, and the paper's value where it has one; averages
        # over labels and over splits are both taken from these two grids.
        ours = {lab: {split: _lookup(scores, model=model, probe=probe_name, split=split,
                                     statistic="invalid_transition_pct", label=lab) for split in run.splits}
                for lab in LABELS}
        paper_values = {lab: {split: reference["values"][lab].get(split) if reference else None for split in run.splits}
                        for lab in LABELS}

        header = ["Predicted label"] + run.splits + ["Average"]
        rows = []
        for lab in LABELS:
            cells = [LABEL_NAMES[lab]]
            for split in run.splits:
                cells.append(Stat.of(ours[lab][split], paper=paper_values[lab][split]))
            cells.append(Stat(_mean(r["mean"] if r else None for r in ours[lab].values()),
                              paper=_mean(paper_values[lab].values())))
            rows.append(cells)
        averages = ["Average"]
        for split in run.splits:
            our_mean = _mean(ours[lab][split]["mean"] if ours[lab][split] else None for lab in LABELS)
            averages.append(Stat(our_mean, paper=_mean(paper_values[lab][split] for lab in LABELS)))
        rows.append(averages + [""])
        stayed = {split: _lookup(scores, model=model, probe=probe_name, split=split, statistic="unchanged_pct", label="all")
                  for split in run.splits}
        rows.append(["Did not move at all (% of all predictions)"] + [Stat.of(stayed[s]) for s in run.splits] + [""])
        if any(lab not in rule.allowed[lab] for lab in LABELS):
            rows.append(["Stayed put where the rule demands a move (%): the failure here"]
                        + [Stat.of(_lookup(scores, model=model, probe=probe_name, split=s,
                                           statistic="unchanged_where_required_pct", label="all")) for s in run.splits]
                        + [""])
        section.blocks.append(TableBlock(header, rows, caption=f"Model {model} (invalid transitions: lower is better "
                                                               "when the predictions move where the table changes)"))
        section.blocks.append(transition_graph_figure(scores, run, model, probe_name))
        visible = visible_perturbations_block(scores, run, model, probe_name)
        if visible:
            section.blocks.append(visible)
        section.blocks.append(transition_matrix_block(scores, run, model, probe_name))
        section.blocks += run.examples_of([probe_name], [model])
    return section


def transition_graph_figure(scores: pl.DataFrame, run: RunInfo, model: str, probe_name: str) -> Figure:
    rule = RULES[get_probe(probe_name).transition_rule]
    percent = {}
    for before in LABELS:
        for after in LABELS:
            values = []
            for split in run.splits:
                r = _lookup(scores, model=model, probe=probe_name, split=split,
                            statistic=f"transition_pct_to_{after}", label=before)
                values.append(r["mean"] if r else None)
            percent[(before, after)] = values
    reference = paper.INVALID_TRANSITIONS.get(probe_name)
    figure = f"; the paper's version is its {reference['figure']}" if reference and reference.get("figure") else ""
    return Figure(
        figures.transition_graph(percent, rule, run.splits, f"{probe_name} · {model}"),
        f"Model {model}: how predictions move under {probe_name} (mean over the samplings){figure}. "
        "Red dashed edges are invalid transitions.",
        path=f"{dimension_of(get_probe(probe_name))}/{model}/{probe_name}.svg",
    )


def visible_perturbations_block(scores: pl.DataFrame, run: RunInfo, model: str, probe_name: str) -> TableBlock | None:
    """Invalid % over the examples whose model input changed. A table edit past the model's
    max_length cut never reaches it; such examples keep their prediction and count as valid in
    the paper-comparable numbers above. None when every (or no) perturbation reached the model."""
    shares = {split: _lookup(scores, model=model, probe=probe_name, split=split, statistic="input_changed_pct", label="all")
              for split in run.splits}
    present = [r["mean"] for r in shares.values() if r and r["mean"] is not None]
    if not present or all(v >= 100.0 for v in present) or all(v <= 0.0 for v in present):
        return None
    rows = []
    for lab in LABELS + ("all",):
        cells = [LABEL_NAMES.get(lab, "All predictions")]
        for split in run.splits:
            r = _lookup(scores, model=model, probe=probe_name, split=split,
                        statistic="invalid_transition_pct_input_changed", label=lab)
            cells.append(Stat.of(r))
        rows.append(cells)
    rows.append(["Examples whose input changed (%)"] + [Stat.of(shares[s]) for s in run.splits])
    return TableBlock(["Predicted label"] + run.splits, rows,
                      caption=f"Model {model}: invalid transitions (%) among the examples whose model input changed "
                              "(the perturbation was not cut off by max_length)")


def transition_matrix_block(scores: pl.DataFrame, run: RunInfo, model: str, probe_name: str) -> TableBlock:
    header = ["Before → after"] + [f"{split}: → {to}" for split in run.splits for to in LABELS]
    rows = []
    for lab in LABELS:
        cells = [LABEL_NAMES[lab]]
        for split in run.splits:
            for to in LABELS:
                r = _lookup(scores, model=model, probe=probe_name, split=split, statistic=f"transition_pct_to_{to}", label=lab)
                cells.append(Stat(r["mean"] if r else None))  # the means only: the graph's numbers, in a grid
        rows.append(cells)
    return TableBlock(header, rows, caption=f"Model {model}: transition matrix, % of each original prediction")


def coverage_section(run: RunInfo) -> Section:
    section = Section("Probe coverage")
    caps = {c["limit"] for c in run.coverage}
    text = "How many gold examples each probe could perturb, and why the rest were skipped."
    if len(caps) == 1 and None not in caps:
        text += f" Each split was capped at {next(iter(caps))} examples (a seeded random subset, the same for every probe)."
    elif caps - {None}:
        text += (" A capped probe sees a seeded random subset of the split; a smaller cap picks a subset of a "
                 "larger one, so every probe example has its original.")
    section.blocks.append(text)
    section.blocks.append(
        "Every perturbation is checked against the promises its probe declares (rows deleted are exactly the ones "
        "it names, the recorded edits reproduce the new hypothesis, an inserted key is new to the table, ...); one "
        "that breaks a promise is dropped before an example is sampled, counted under \"Dropped\" and listed in "
        "the job log (logs/generate_probe/). \"Curation\" counts the label flips a person must check (paper section "
        "4: CONTRADICT -> ENTAIL flips and heuristic flips) and what the curation file decided; "
        + UNVERIFIED_POLICY[run.unverified_flips] + " An example rejected by curation is skipped.")
    order = {split: i for i, split in enumerate(SPLITS)}
    rows = [
        [c["probe"], c["split"], "all" if c["limit"] is None else str(c["limit"]), str(c["gold"]), str(c["perturbed"]),
         "; ".join(f"{k}: {v}" for k, v in c["skipped"].items()) or "–",
         "; ".join(f"{k}: {v}" for k, v in c.get("dropped", {}).items()) or "–",
         curation_counts(c.get("review"))]
        for c in sorted(run.coverage, key=lambda c: (run.probes.index(c["probe"]), order[c["split"]]))
    ]
    section.blocks.append(TableBlock(["Probe", "Split", "Cap", "Gold examples", "Perturbed", "Skipped (reason: count)",
                                      "Dropped (broken promise: count)", "Curation"], rows))
    return section


UNVERIFIED_POLICY = {
    "exclude": "candidates nobody decided (unverified) are left out of every score, of the paper tables' pooled "
               "columns and of inoculation (unverified_flips: exclude), as the paper counted only curated flips.",
    "include": "candidates nobody decided (unverified) are counted in the scores like the rest "
               "(unverified_flips: include): their labels were set automatically and not checked by a person.",
}


def curation_counts(review: Mapping | None) -> str:
    """A coverage row's curation: candidates and what became of them."""
    if not review or not any(review.values()):
        return "–"
    parts = [f"{review['candidates']} to check"] + [f"{review[k]} {k}" for k in
                                                     ("accepted", "relabelled", "rejected", "unverified", "stale")
                                                     if review.get(k)]
    return ", ".join(parts)


def curation_note(run: RunInfo, probe_names: Sequence[str]) -> str | None:
    """What became of the label flips a person must check, for the probes of a paper table."""
    reviews = [(c["probe"], c["split"], c["review"]) for c in run.coverage
               if c["probe"] in probe_names and c.get("review", {}).get("candidates")]
    if not reviews:
        return None
    total = {k: sum(r[k] for _, _, r in reviews) for k in ("candidates", "accepted", "relabelled", "rejected", "unverified")}
    per = "; ".join(f"`{p}` on {s}: {curation_counts(r)}" for p, s, r in reviews)
    return (f"Label flips that need a person (paper section 4: the paper annotated every CONTRADICT -> ENTAIL flip and "
            f"curated its half/twice heuristic by hand): {total['candidates']} in this run, "
            f"{total['accepted'] + total['relabelled']} verified ({total['accepted']} accepted, {total['relabelled']} "
            f"relabelled), {total['rejected']} rejected (dropped), {total['unverified']} not checked; "
            + UNVERIFIED_POLICY[run.unverified_flips]
            + f" Per probe: {per}. Check them with `tabprobe curate PROBE` (README: curation).")


def run_section(run: RunInfo) -> Section:
    section = Section("This run")
    for name, model in run.models.items():
        meta = model.get("meta") or {}
        if meta.get("trained") is False:
            section.blocks.append(
                Alert(f"Model {name} has an untrained classification head ({meta.get('note', '')}); "
                 "its predictions exercise the workflow but say nothing about NLI reasoning.")
            )
    rows = []
    for name, m in run.models.items():
        meta = m.get("meta") or {}
        if meta.get("trained"):
            ts = meta["train_settings"]
            training = (f"{meta['train_examples']} of {meta['train_examples_available']} train examples, "
                        f"{ts['epochs']} epoch(s), max_length {ts['max_length']}, {meta['train_seconds']:.0f} s")
            dev = f"{meta['dev_accuracy']:.2f} (n={meta['dev_examples']})"
        else:
            training = "untrained head" if meta.get("trained") is False else "user checkpoint"
            dev = "–"
        rows.append([name, m["premise"], training, dev, str(m["checkpoint"]), m.get("fingerprint", "–"),
                     f"{m['truncated']} of {m['examples']}", m.get("precision") or "–"])
    section.blocks.append(
        TableBlock(["Model", "Premise rendering", "Training", "Dev accuracy", "Checkpoint", "Fingerprint",
                    "Premises cut to max_length (all probes and splits)", "Inference precision"], rows)
    )
    section.blocks.append(
        f"Data: {run.data_source}. Splits: {', '.join(run.splits)}. Probes: {', '.join(run.probes)}. Seed: {run.seed}."
    )
    return section



# ---------------------------------------------------------------- the parts of the report

EXAMPLES_SHOWN = 5  # failing examples per probe and model


def load_examples(showcase: Mapping[str, Mapping], models: Sequence[str], seed: int,
                  root: str | Path = ".", unverified_flips: str = "exclude") -> dict[tuple[str, str], ExamplesBlock]:
    """A few failing examples of each probe for each model. `showcase` maps a probe to its split
    and its `showcase_inputs` files (relative to `root`)."""
    from . import failures, infotabs

    out: dict[tuple[str, str], ExamplesBlock] = {}
    split_data: dict[str, tuple[dict, dict]] = {}
    for probe_name, spec in showcase.items():
        split, files = spec["split"], {key: Path(root) / path for key, path in spec["files"].items()}
        if split not in split_data:
            examples = read_parquet(files["examples"], schemas.EXAMPLES).to_pylist()
            split_data[split] = ({e["uid"]: e for e in examples},
                                 infotabs.load_tables(read_parquet(files["tables"], schemas.TABLES)))
        for model in models:
            found, changes = failures.failing_examples(files, get_probe(probe_name), model, split, EXAMPLES_SHOWN, seed,
                                                       split_data[split], unverified_flips)
            out[(probe_name, model)] = ExamplesBlock(probe_name, model, split, found, changes)
    return out


def _first_scored(scores: pl.DataFrame, model: str, probe: str, statistic: str) -> tuple[str, dict] | None:
    """(split, score) of the first split in SHOWCASE_ORDER where the probe has a value of the
    statistic for the model."""
    for split in SHOWCASE_ORDER:
        score = _lookup(scores, model=model, probe=probe, split=split, statistic=statistic, label="all")
        if score and score["mean"] is not None:
            return split, score
    return None


def _summary_rows(scores: pl.DataFrame, run: RunInfo, model: str) -> list[tuple[str, str, str, Stat, str]]:
    """(dimension, probe or pooled column, measure, value, split) for one model: the paired
    accuracy drop of every probe judged by a label (and of the pooled columns of paper Tables 4
    and 7), the invalid-transition % of every table probe; each on the first split (of
    SHOWCASE_ORDER) where it has a value."""
    rows = []
    entries = [(dimension_of(get_probe(p)), p, get_probe(p).judged_by) for p in run.probes
               if p != "original" and get_probe(p).judged_by != "evidence"]
    for table, dimension in (("table4", "artifacts"), ("table7", "counterfactuals")):
        for column, members in pooled_members(table, run.probes).items():
            if members:
                entries.append((dimension, f"{table}:{column}", "expected"))
    for dimension, name, judged_by in entries:
        transitions = judged_by == "transitions"
        found = _first_scored(scores, model, name, "invalid_transition_pct" if transitions else "accuracy_drop")
        if found is None:
            continue
        split, score = found
        label = name
        if ":" in name:
            table, column = name.split(":")
            label = f"paper {table.replace('table', 'Table ')}: {column.replace('_', ' ')} (pooled)"
        rows.append((dimension, label, "invalid transitions (%)" if transitions else "accuracy drop (points)",
                     Stat.of(score, signed=not transitions,
                             paper=paper.summary_tick(name, "invalid_transition_pct" if transitions else "accuracy_drop",
                                                      split)), split))
    order = list(DIMENSIONS)
    return sorted(rows, key=lambda r: order.index(r[0]))  # stable: probes keep their config order


def better_direction(name: str, measure: str) -> str:
    """Which way a summary number is good, in words."""
    if measure.startswith("invalid"):
        return "lower, if predictions move where the table changes"
    if "flipped" in name or (":" not in name and get_probe(name).label_change == "flipped"):
        return "lower: a drop means it missed the flip"
    if ":" not in name and get_probe(name).family == "premise_control":
        return "higher: a drop means it reads the premise"
    return "lower"


def summary_section(scores: pl.DataFrame, run: RunInfo) -> Section:
    section = Section("Summary: every probe at a glance", anchor="summary")
    lines = []
    for model, info in run.models.items():
        split = next((s for s in SHOWCASE_ORDER if _lookup(scores, model=model, probe="original", split=s,
                                                             statistic="accuracy", label="all")), None)
        if split:
            accuracy = Stat.of(_lookup(scores, model=model, probe="original", split=split, statistic="accuracy", label="all"))
            sees = "hypothesis only" if info["premise"] == "hypothesis_only" else f"table as {info['premise']} + hypothesis"
            lines.append(f"{model} ({sees}): accuracy {accuracy.text()} on {split}")
    section.blocks.append(
        "How each model's accuracy moves under each probe, grouped by the paper's dimensions: for probes judged by a "
        "label, the paired drop in accuracy (the same gold examples before and after the change; positive = the probe "
        "hurt); for table perturbations, the share of predictions that moved in a way the transition rule forbids. "
        f"Points are means over {run.scoring['samplings']} samplings of {run.scoring['fraction']:.0%} of the examples, "
        f"bars their {run.scoring['confidence']:.0%} bootstrap interval, red ticks the paper's RoBERTa-large (an "
        "invalid-transition tick is the mean of its three per-label cells; a pooled drop its original minus its "
        f"column), on the probe's first split of {', '.join(SHOWCASE_ORDER)}. Which way is good is in the table's "
        "last column. A drop under a premise control is what a model that reads its table shows; a drop under a "
        "label-preserving edit is a failure. Few invalid transitions are a merit only in a model whose predictions "
        "move where the table changes: a model that ignores its table never moves and has none (the Verdicts above "
        "say which models do). " + ("; ".join(lines) + "." if lines else ""))
    table_rows = []
    for model in run.models:
        rows = _summary_rows(scores, run, model)
        if not rows:
            continue
        panels = []
        for measure in ("accuracy drop (points)", "invalid transitions (%)"):
            points = [figures.ChartPoint(DIMENSIONS[d], name, stat.mean, stat.low, stat.high, stat.n or 0, stat.paper)
                      for d, name, m, stat, _ in rows if m == measure]
            if points:
                panels.append(figures.ChartPanel(f"{measure[0].upper()}{measure[1:]}", points, zero_line=True))
        section.blocks.append(Figure(
            figures.dot_chart(panels, f"{model}: accuracy under each probe", salt=f"summary-{model}"),
            f"Model {model}: mean and {run.scoring['confidence']:.0%} interval of each probe's effect, the paper's "
            "RoBERTa-large as a red tick where it has a comparable number; n is the number of examples.",
            path=f"summary/{model}/all-probes.svg"))
        table_rows += [[DIMENSIONS[d], name, model, split, measure, stat, better_direction(name, measure)]
                       for d, name, measure, stat, split in rows]
    if table_rows:
        section.blocks.append(TableBlock(["Dimension", "Probe", "Model", "Split", "Measure", "Mean (std) [95% CI] n",
                                          "Better"], table_rows, caption="Every probe at a glance (click a column to sort)"))
    return section


def verdict_section(run: RunInfo) -> Section:
    section = Section("Verdicts: does each model use the evidence in its table?", anchor="verdicts")
    section.blocks.append(
        "Each verdict rests on the numbers listed under it, with their 95% intervals; \"cannot tell\" means the "
        "intervals allow both readings or the numbers disagree. How numbers become verdicts is written down under "
        "the scorecard (and in workflow/tabprobe/verdicts.py).")
    section.blocks += [VerdictBlock(v) for v in run.verdicts.values()]
    return section


def _scorecard_models(scores: pl.DataFrame, run: RunInfo) -> list[str]:
    """The probed models, then the models derived from them (inoculated), in name order."""
    derived = sorted(m for m in scores["model"].unique().to_list() if m not in run.models and not m.endswith(".cv"))
    return list(run.models) + derived


def scorecard_section(scores: pl.DataFrame, run: RunInfo) -> Section:
    section = Section("Scorecard: the numbers that decide the verdicts, one row per model", anchor="scorecard")
    models = _scorecard_models(scores, run)
    measures = [m for m in verdicts.SCORECARD if any(verdicts.scorecard_cell(scores, model, m) for model in models)]
    rows = []
    for model in models:
        cells: list = [model]
        for measure in measures:
            found = verdicts.scorecard_cell(scores, model, measure)
            cells.append(Stat.of(found[1], signed=measure.unit == "points") if found else "–")
        verdict = run.verdicts.get(model)
        cells.append(verdicts.short_verdict(verdict) if verdict else "not probed for a verdict (derived model)")
        rows.append(cells)
    rows.append(["paper: RoBERTa-large"] + [Stat(m.paper, signed=m.unit == "points") if m.paper is not None else "–"
                                            for m in measures] + [""])
    splits = sorted({found[0] for model in models for m in measures
                     if (found := verdicts.scorecard_cell(scores, model, m))}, key=SHOWCASE_ORDER.index)
    section.blocks.append(TableBlock(
        ["Model"] + [f"{m.title} ({m.unit}; {m.better} is better)" for m in measures] + ["Verdict"], rows,
        caption=f"Each number on the first split where it was measured ({', '.join(splits)}), mean (std) [95% CI] n"))
    sources = "; ".join(f"{m.title}: {m.paper_source}" for m in measures if m.paper_source)
    if sources:
        section.blocks.append(f"The paper's row: {sources}. Differences of the paper's means are not paired.")
    panels = []
    for measure in measures:
        points = []
        for model in models:
            found = verdicts.scorecard_cell(scores, model, measure)
            score = found[1] if found else {"mean": None, "ci_low": None, "ci_high": None, "n": 0}
            points.append(figures.ChartPoint(f"{measure.better} is better", model, score["mean"], score["ci_low"],
                                             score["ci_high"], score["n"], measure.paper))
        panels.append(figures.ChartPanel(f"{measure.title} ({measure.unit})", points,
                                         zero_line=measure.unit == "points"))
    if panels:
        section.blocks.append(Figure(figures.dot_chart(panels, "Scorecard: every model on the deciding numbers",
                                                       salt="scorecard"),
                                     "Mean and 95% interval of each deciding number per model; red ticks: the paper's "
                                     "RoBERTa-large.", path="summary/all-models/scorecard.svg"))
    section.blocks.append("How the verdicts are decided (workflow/tabprobe/verdicts.py):")
    section.blocks += [f"({i}) {rule}" for i, rule in enumerate(verdicts.RULES, start=1)]
    return section


def inoculation_sections(scores: pl.DataFrame, run: RunInfo) -> list[Section]:
    """Paper section 7: Tables 9-12 beside the paper's, the learning rate each size kept, and
    Liu et al.'s outcome of each inoculation with the changes that decide it."""
    from .inoculation import Change, liu_outcome

    plan = run.inoculation_plan
    if not run.inoculation or not plan:
        return []
    full = plan.get("full")
    grid = (f"learning rates {', '.join(f'{lr:g}' for lr in plan['learning_rates'])}, at most {plan['max_epochs']} "
            f"epoch(s), stopping after {plan['patience']} without a better dev accuracy on "
            f"{plan['dev_examples'] or 'all'} dev examples")
    sections = []
    for experiment, summary in run.inoculation.items():
        table = summary["table"]
        reference = paper.INOCULATION[experiment]
        base = summary["model"]
        sizes = [0] + [int(s) for s in summary["sizes"]]
        names = {0: summary["before"], **{int(s): v["model"] for s, v in summary["sizes"].items()}}
        section = Section(f"Inoculation on {experiment} examples (paper {' and '.join(reference['tables'])})")
        section.blocks.append(
            f"`{base}` fine-tuned further on {', '.join(str(s) for s in sizes[1:])} challenge examples from train "
            f"(nested: each smaller set inside the larger; one example per gold example from the probes of paper "
            f"{table.replace('table', 'Table ')}), one job per size and learning rate, keeping per size the learning rate "
            f"with the best dev accuracy. Grid: {grid}"
            + (" (the paper's)." if full else ". This is the CPU budget's reduced grid; `full: true` runs the paper's "
               "(1e-4, 5e-5, 1e-5, up to 30 epochs).")
            + " Change: the inoculated model minus the model before, on the same examples and samplings (points, 95% CI). "
              "The paper's RoBERTa-large rows (learning rate 1e-5) follow this run's.")

        def row_title(size: int) -> str:
            return f"{size} (w/o inoculation)" if size == 0 else str(size)

        splits = [s for s in SPLITS if _lookup(scores, model=names[0], probe="original", split=s, statistic="accuracy", label="all")]
        rows = []
        for size in sizes:
            cells = [row_title(size)]
            for split in splits:
                cells.append(Stat.of(_lookup(scores, model=names[size], probe="original", split=split, statistic="accuracy",
                                             label="all")))
                cells.append(Stat.of(_lookup(scores, model=names[size], probe="original", split=split,
                                             statistic="accuracy_change", label="all"), signed=True) if size else "")
            rows.append(cells)
        for size, values in reference["original"].items():
            rows.append([f"paper: {row_title(size)}"] + [c for s in splits for c in (Stat.reference(values.get(s)), "")])
        section.blocks.append(TableBlock(["Examples"] + [f"{s}: {what}" for s in splits for what in ("accuracy", "change")],
                                         rows, caption=f"Paper {reference['tables'][0]} layout: the original test sets"))
        columns = [("original", "EC", "Original (w/o NEUTRAL)"), (f"{table}:label_preserved", "all", "Label preserved"),
                   (f"{table}:label_flipped", "all", "Label flipped")]
        rows = []
        for size in sizes:
            cells = [row_title(size)]
            for probe, label, _ in columns:
                cells.append(Stat.of(_lookup(scores, model=names[size], probe=probe, split="alpha1", statistic="accuracy",
                                             label=label)))
                cells.append(Stat.of(_lookup(scores, model=names[size], probe=probe, split="alpha1",
                                             statistic="accuracy_change", label=label), signed=True) if size else "")
            rows.append(cells)
        for size, values in reference["challenge"]["alpha1"].items():
            rows.append([f"paper: {row_title(size)}"] + [c for v in values for c in (Stat.reference(v), "")])
        section.blocks.append(TableBlock(["Examples"] + [f"{title}: {what}" for _, _, title in columns for what in ("accuracy", "change")],
                                         rows, caption=f"Paper {reference['tables'][1]} layout: alpha1 without NEUTRAL "
                                                       "(the paper's train rows are not run: inoculation trains on train)"))
        grid_rows = [[str(size), f"{v['learning_rate']:g}",
                      "; ".join(f"{lr}: {acc:.2f}" for lr, acc in v["dev_accuracy_by_learning_rate"].items()),
                      f"{v['dev_accuracy_before']:.2f}", f"{v['best_epoch']} of {v['epochs_run']} (max {v['max_epochs']})",
                      str(v["train_examples"])]
                     for size, v in ((int(s), v) for s, v in summary["sizes"].items())]
        section.blocks.append(TableBlock(["Examples", "Learning rate kept", "Dev accuracy by learning rate",
                                          "Dev accuracy before", "Epoch kept", "Trained on"], grid_rows,
                                         caption="The grid: what each inoculation kept"))
        outcomes = []
        for size in sizes[1:]:
            original = _lookup(scores, model=names[size], probe="original", split="alpha1", statistic="accuracy_change", label="all")
            challenge = _lookup(scores, model=names[size], probe=f"{table}:challenge", split="alpha1",
                                statistic="accuracy_change", label="all")
            if not (original and challenge and original["mean"] is not None and challenge["mean"] is not None):
                outcomes.append([str(size), "–", "no paired change to judge (no examples)"])
                continue
            number, sentence = liu_outcome(Change(original["mean"], original["ci_low"], original["ci_high"]),
                                           Change(challenge["mean"], challenge["ci_low"], challenge["ci_high"]))
            outcomes.append([str(size), str(number) if number else "none", sentence])
        section.blocks.append(TableBlock(["Examples", "Outcome", "Decided by (change on the challenge set: both columns "
                                          "pooled; on the original: alpha1)"], outcomes,
                                         caption="Liu et al.'s outcomes (paper section 7: both of its experiments are Outcome 3)"))
        sections.append(section)
    return sections


def variance_section(scores: pl.DataFrame, run: RunInfo) -> Section | None:
    """Controlled variance (diversify-your-datasets section 3): accuracy by number range after
    fine-tuning on one range, each repeat, and the mean and spread over the repeats."""
    if not run.variance:
        return None
    section = Section("Controlled variance: number ranges (diversify-your-datasets section 3)")
    for model, summary in run.variance.items():
        section.blocks.append(
            f"`{model}` fine-tuned on `num_comparative` examples ('The {{key}} of {{title}} is more than / less than / exactly "
            f"N', labelled by rule) from train tables whose numbers lie in {summary['train_range']}, then tested on such "
            f"examples from alpha1 tables in each range; {summary['repeats']} repeats, each with its own examples, numbers "
            "and training subset. A model that learned to compare numbers does as well on every range; the paper's BERT "
            "stayed below 70% on ranges it was not trained on. Cells: mean over the repeats (standard deviation) "
            "[lowest, highest]; each repeat's own accuracy, with its interval over the samplings, below.")
        rows = []
        for ranges in summary["ranges"]:
            label = ranges["range"]
            cells = [label + (" (trained on)" if label == summary["train_range"] else "")]
            for when in ("before", "after"):
                s = ranges[when]
                cells.append("–" if s["mean"] is None else
                             f"{s['mean']:.2f}" + (f" ({s['std']:.2f})" if s["std"] is not None else "")
                             + f" [{s['min']:.2f}, {s['max']:.2f}] over {s['repeats']}")
            rows.append(cells)
        section.blocks.append(TableBlock(["Test range", "Before fine-tuning", "After fine-tuning on " + summary["train_range"]],
                                         rows, caption=f"Model {model}: accuracy by number range"))
        repeats = sorted({r["label"] for r in scores.filter(pl.col("model") == f"{model}.cv").iter_rows(named=True)},
                         key=lambda label: int(label[1:]))
        per_repeat = []
        for label in (r["range"] for r in summary["ranges"]):
            cells = [label]
            for repeat in repeats:
                cells.append(Stat.of(_lookup(scores, model=f"{model}.cv", probe=f"num_comparative[{label}]", split="alpha1",
                                             statistic="accuracy", label=repeat)))
            per_repeat.append(cells)
        section.blocks.append(TableBlock(["Test range"] + [f"repeat {r[1:]}" for r in repeats], per_repeat,
                                         caption=f"Model {model} after fine-tuning, each repeat"))
    return section


def build_sections(scores: pl.DataFrame, run: RunInfo) -> list[Section]:
    run.verdicts = verdicts.verdicts(scores, verdicts.facts_of(run.models, run.relevance))
    sections = [verdict_section(run), scorecard_section(scores, run), summary_section(scores, run), run_section(run)]
    if "original" in run.probes:
        sections.append(accuracy_section(scores, run))
    transition_probes = [p for p in run.probes if get_probe(p).judged_by == "transitions"]
    parts = {
        "artifacts": [artifacts_section(scores, run), family_section(scores, run, "premise_control")],
        "evidence": ([transition_rules_section(transition_probes)] if transition_probes else [])
                    + [invalid_transition_section(scores, run, p) for p in transition_probes]
                    + [evidence_section(scores, run)],
        "counterfactuals": [counterfactual_section(scores, run)],
        "inoculation": inoculation_sections(scores, run),
    }
    for dimension, subsections in parts.items():
        subsections = [s for s in subsections if s]
        if subsections:
            sections.append(Section(DIMENSIONS[dimension], [DIMENSION_INTROS[dimension]]))
            for subsection in subsections:
                subsection.level = 3
                sections.append(subsection)
    for family in ("numeric", "external", ""):
        section = family_section(scores, run, family)
        if section:
            sections.append(section)
            if family == "numeric" and variance_section(scores, run):
                sections.append(variance_section(scores, run))
                sections[-1].level = 3
    if not any(get_probe(p).family == "numeric" for p in run.probes) and variance_section(scores, run):
        sections.append(variance_section(scores, run))
    sections.append(coverage_section(run))
    return sections


TITLE = "tabprobe report: is the model using the evidence in its tables?"
LEDE = ("Does each model reason from the evidence in its table? The verdicts come first, then the scorecard that "
        "decides them, then every probe. Systematic probes of \"Is My Model Using the Right Evidence?\" (Gupta et al.) on InfoTabS: the tables and "
        "hypotheses are perturbed in controlled ways and the model's predictions compared with what evidence-based "
        "reasoning allows. Every number carries its n and its interval; the paper's RoBERTa-large numbers stand "
        "beside this run's.")


@dataclass
class Report:
    html: str
    markdown: str
    figures: dict[str, str]  # results/report/figures/<path> -> SVG text


def assemble(scores: pl.DataFrame, run: RunInfo) -> Report:
    """The report from the run's results table (`results.collect`) and what else it knows."""
    sections = build_sections(scores, run)
    files = {block.path: block.svg for section in sections for block in section.blocks
             if isinstance(block, Figure) and block.path}
    return Report(report_render.to_html(sections, TITLE, LEDE), report_render.to_markdown(sections, TITLE, LEDE), files)
