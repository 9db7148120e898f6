"""The final report: one self-contained HTML page and the same content as Markdown.

Content is built once as a list of sections (headings, paragraphs, tables) and rendered to
both formats, so the two never disagree.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import polars as pl

from . import LABEL_NAMES, LABELS, figures, paper, schemas
from .infotabs import SPLITS
from .io import read_parquet
from .probes import get_probe, pooled_members
from .transitions import RULES


@dataclass
class TableBlock:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Figure:
    svg: str
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[Any] = field(default_factory=list)  # str (paragraph), TableBlock, Figure, or ("warning", str)


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


def load_scores(paths: Iterable[str | Path]) -> pl.DataFrame:
    frames = [pl.from_arrow(read_parquet(p, schemas.SCORES)) for p in paths]
    return pl.concat(frames) if frames else pl.DataFrame(schema=pl.from_arrow(schemas.SCORES.empty_table()).schema)


def _fmt(mean, std=None) -> str:
    if mean is None:
        return "–"
    return f"{mean:.2f} ({std:.2f})" if std is not None else f"{mean:.2f}"


def _mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that exist; None when none does."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _lookup(scores: pl.DataFrame, **where) -> dict | None:
    hit = scores.filter(pl.all_horizontal([pl.col(k) == v for k, v in where.items()]))
    return hit.row(0, named=True) if hit.height else None


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
            cells.append(f"{_fmt(r['mean'], r['std'])} [{r['ci_low']:.1f}, {r['ci_high']:.1f}] n={r['n']}" if r and r["mean"] is not None else "–")
        rows.append(cells)
    for name, values in paper.TABLE1_ACCURACY.items():
        rows.append([f"paper: {name}"] + [_fmt(values.get(s)) for s in run.splits])
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




def _cell(r: dict | None) -> str:
    return f"{_fmt(r['mean'], r['std'])} n={r['n']}" if r and r["mean"] is not None else "–"


def pooled_table_blocks(scores: pl.DataFrame, run: RunInfo, table: str, reference: dict) -> list[TableBlock]:
    """Paper Table 4 or 7 per split: accuracy on the gold examples (w/o NEUTRAL) and on one sampled
    label-preserving / label-flipping edit per gold example, with the paired drops, and the
    paper's rows beneath."""
    members = pooled_members(table, run.probes)
    columns = list(members)
    names = [f"{table}:{c}" for c in columns]
    splits = [s for s in SPLITS if not scores.filter((pl.col("probe").is_in(names)) & (pl.col("split") == s)).is_empty()]
    blocks = []
    for split in splits:
        rows = []
        for model in run.models:
            original = _lookup(scores, model=model, probe="original", split=split, statistic="accuracy", label="EC")
            cells = [model, _cell(original)]
            for name in names:
                cells.append(_cell(_lookup(scores, model=model, probe=name, split=split, statistic="accuracy", label="all")))
            for name in names:
                cells.append(_drop(_lookup(scores, model=model, probe=name, split=split, statistic="accuracy_drop", label="all")))
            rows.append(cells)
        for name, values in reference.get(split, {}).items():
            rows.append([f"paper: {name}"] + [_fmt(*values[k]) for k in ("original", *columns)] + ["", ""])
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
    section.blocks.append(DROP_EXPLAINED)
    section.blocks.append(probe_accuracy_table(scores, run, [p for c in members for p in members[c]],
                                               "Per probe: accuracy against the expected label; drop from the same gold examples unperturbed"))
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
        splits = [s for s in SPLITS if not scores.filter((pl.col("probe") == probe_name) & (pl.col("split") == s)).is_empty()]
        header = ["Statistic"] + [f"{m} · {s}" for m in run.models for s in splits] + ["paper"]
        rows = []
        for title, statistic, label in EVIDENCE_ROWS:
            cells = [title]
            for model in run.models:
                for split in splits:
                    cells.append(_cell(_lookup(scores, model=model, probe=probe_name, split=split, statistic=statistic, label=label)))
            reference = paper.EVIDENCE_SELECTION.get((statistic, label))
            rows.append(cells + [_fmt(reference)])
        section.blocks.append(TableBlock(header, rows, caption=f"Model evidence selection ({probe_name})"))
        for model, info in run.models.items():
            if info["premise"] == "hypothesis_only":
                section.blocks.append(f"Model {model} never sees the table: it ignores it by construction.")
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
                    cells.append(_cell(_lookup(scores, model=model, probe=name, split=split, statistic="paired_correctness_pct", label=cell)))
                reference = paper.TABLE8.get(cell, {}) if column == "label_flipped" else {}
                cells += [_fmt(reference.get(s)) if reference.get(s) is not None else "" for s in splits]
                rows.append(cells)
            section.blocks.append(TableBlock(
                ["C-THP (counterfactual)", "O-THP (original)", "O-Hypo (hypothesis-only model, original)"]
                + [f"% of examples · {s}" for s in splits] + [f"paper · {s}" for s in splits], rows,
                caption=f"Paper Table 8 layout, {column.replace('_', ' ')} counterfactuals: model {model} on each counterfactual and its "
                        "original, beside the hypothesis-only model on the original (✓ correct, ✗ wrong)"))
    section.blocks.append(
        "Table 8 reading: ✗ ✓ ✗ (right on the original, wrong on its counterfactual, and the hypothesis alone does not "
        "give the answer) points at pre-trained knowledge; ✗ ✓ ✓ at hypothesis artifacts together with it. The paper "
        "lists only the first four rows, on its hand-made label-flipped sets.")
    return section


DROP_EXPLAINED = ("Drop: accuracy of the same gold examples before the edit minus after it, computed on the same "
                  "samplings (a paired comparison; positive = the edit hurt), with a percentile bootstrap interval. "
                  "Input changed: the share of examples whose tokens, as the model saw them, differ from the "
                  "unperturbed example's (an edit to a row cut off past max_length never reaches the model).")


def _drop(r: dict | None) -> str:
    return f"{r['mean']:+.2f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]" if r and r["mean"] is not None else "–"


def probe_accuracy_table(scores: pl.DataFrame, run: RunInfo, probe_names: Sequence[str], caption: str,
                         reference: dict[str, dict[str, float]] | None = None) -> TableBlock:
    """One row per probe and model: per split, accuracy against the expected label (mean (std),
    n) and the paired drop from the unperturbed examples; `reference` adds the paper's rows."""
    splits = [s for s in SPLITS if not scores.filter(pl.col("probe").is_in(list(probe_names)) & (pl.col("split") == s)).is_empty()]
    rows = []
    for probe_name in probe_names:
        for model in run.models:
            cells = []
            for split in splits:
                accuracy = _lookup(scores, model=model, probe=probe_name, split=split, statistic="accuracy", label="all")
                drop = _lookup(scores, model=model, probe=probe_name, split=split, statistic="accuracy_drop", label="all")
                changed = _lookup(scores, model=model, probe=probe_name, split=split, statistic="input_changed_pct", label="all")
                cells.append(_cell(accuracy) + (f"; drop {_drop(drop)}" if drop and drop["mean"] is not None else "")
                             + (f"; input changed {changed['mean']:.0f}%" if changed and changed["mean"] is not None else ""))
            if any(c != "–" for c in cells):
                rows.append([probe_name, model] + cells)
        if reference and probe_name in reference:
            rows.append([probe_name, "paper: RoBERTa-large"] + [_fmt(reference[probe_name].get(s)) for s in splits])
    return TableBlock(["Probe", "Model"] + splits, rows, caption=caption)


def family_section(scores: pl.DataFrame, run: RunInfo, family: str) -> Section | None:
    """Premise controls (InfoTabS paper Tables 3-4) or numeric probes: accuracy and paired drop."""
    names = [p for p in run.probes if get_probe(p).family == family]
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
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop)",
                                                   reference=paper.PREMISE_CONTROLS))
    elif family == "external":
        section = Section("External probe sets")
        section.blocks.append(
            "Probe sets given as folders in InfoTabS format (config `probes: {name: {external: folder}}`), scored "
            "against their own labels; the paired drop covers the lines paired with a gold example of the split "
            "(see Probe coverage). " + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop)"))
    else:
        section = Section("Numeric probes")
        section.blocks.append(
            "Rewrites that keep the label (numbers as words, integers as decimals, 'N (not M)' in the "
            "table, distractor numeric rows: numerical-qa-robustness section 4.2) and templated "
            "comparisons whose label a rule computes (diversify-your-datasets section 3), scored "
            "against the expected label. " + DROP_EXPLAINED)
        section.blocks.append(probe_accuracy_table(scores, run, names, "Accuracy (mean (std), n; paired drop)"))
    for name in names:
        section.blocks.append(f"`{name}`: {get_probe(name).description} ({get_probe(name).paper_reference})")
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
        "predicted: invalid transitions / examples originally predicted with that label. "
        "For an ideal model all these numbers are zero. Cells: mean (std) over the samplings"
        + ("; the paper's RoBERTa-large number follows the slash." if reference else ".")
    )
    allowed = "; ".join(f"{lab} → {', '.join(to for to in LABELS if to in rule.allowed[lab])}" for lab in LABELS)
    section.blocks.append(f"Valid transitions ({rule.source}): {allowed}.")
    if probe.needs_relevance:
        section.blocks.append(relevance_note(run))
    for model, info in run.models.items():
        if info["premise"] == "hypothesis_only":
            section.blocks.append(
                f"Model {model} never sees the table, so its predictions cannot change with it: zero "
                "invalid transitions here are guaranteed by construction and say nothing about reasoning."
            )
        elif info.get("truncated"):
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

        def cell(mean, paper_value, std=None):
            return _fmt(mean, std) + (f" / {paper_value:.2f}" if paper_value is not None else "")

        header = ["Predicted label"] + run.splits + ["Average"]
        rows = []
        for lab in LABELS:
            cells = [LABEL_NAMES[lab]]
            for split in run.splits:
                r = ours[lab][split]
                cells.append(cell(r["mean"] if r else None, paper_values[lab][split], r["std"] if r else None))
            cells.append(cell(_mean(r["mean"] if r else None for r in ours[lab].values()),
                              _mean(paper_values[lab].values())))
            rows.append(cells)
        averages = ["Average"]
        for split in run.splits:
            our_mean = _mean(ours[lab][split]["mean"] if ours[lab][split] else None for lab in LABELS)
            averages.append(cell(our_mean, _mean(paper_values[lab][split] for lab in LABELS)))
        rows.append(averages + [""])
        section.blocks.append(TableBlock(header, rows, caption=f"Model {model}"))
        section.blocks.append(transition_graph_figure(scores, run, model, probe_name))
        visible = visible_perturbations_block(scores, run, model, probe_name)
        if visible:
            section.blocks.append(visible)
        section.blocks.append(transition_matrix_block(scores, run, model, probe_name))
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
        "Red edges are invalid transitions.",
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
            cells.append(f"{_fmt(r['mean'], r['std'])} n={r['n']}" if r and r["mean"] is not None else "–")
        rows.append(cells)
    rows.append(["Examples whose input changed (%)"] + [_fmt(shares[s]["mean"]) if shares[s] else "–" for s in run.splits])
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
                cells.append(_fmt(r["mean"]) if r else "–")
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
    order = {split: i for i, split in enumerate(SPLITS)}
    rows = [
        [c["probe"], c["split"], "all" if c["limit"] is None else str(c["limit"]), str(c["gold"]), str(c["perturbed"]),
         "; ".join(f"{k}: {v}" for k, v in c["skipped"].items()) or "–"]
        for c in sorted(run.coverage, key=lambda c: (run.probes.index(c["probe"]), order[c["split"]]))
    ]
    section.blocks.append(TableBlock(["Probe", "Split", "Cap", "Gold examples", "Perturbed", "Skipped (reason: count)"], rows))
    return section


def run_section(run: RunInfo) -> Section:
    section = Section("This run")
    for name, model in run.models.items():
        meta = model.get("meta") or {}
        if meta.get("trained") is False:
            section.blocks.append(
                ("warning", f"Model {name} has an untrained classification head ({meta.get('note', '')}); "
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


def build_sections(scores: pl.DataFrame, run: RunInfo) -> list[Section]:
    sections = [run_section(run)]
    if "original" in run.probes:
        sections.append(accuracy_section(scores, run))
    for section in (artifacts_section(scores, run), evidence_section(scores, run), counterfactual_section(scores, run),
                    family_section(scores, run, "premise_control"), family_section(scores, run, "numeric"),
                    family_section(scores, run, "external")):
        if section:
            sections.append(section)
    transition_probes = [p for p in run.probes if get_probe(p).judged_by == "transitions"]
    if transition_probes:
        sections.append(transition_rules_section(transition_probes))
    for probe_name in transition_probes:
        sections.append(invalid_transition_section(scores, run, probe_name))
    sections.append(coverage_section(run))
    return sections


# ---------------------------------------------------------------- rendering

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.9rem}th,td{border:1px solid #ccc;padding:.25rem .55rem;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}caption{text-align:left;font-weight:600;padding:.3rem 0}
figure{margin:1rem 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#444}
.warning{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem .8rem}code{background:#f3f3f3;padding:0 .2rem}
"""


def _inline_code(text: str, fmt: str) -> str:
    if fmt == "md":
        return text
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def to_html(sections: Sequence[Section], title: str) -> str:
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
           f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    for section in sections:
        out.append(f"<section><h2>{_inline_code(section.title, 'html')}</h2>")
        for block in section.blocks:
            if isinstance(block, TableBlock):
                out.append("<table>")
                if block.caption:
                    out.append(f"<caption>{html.escape(block.caption)}</caption>")
                out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in block.header) + "</tr>")
                for row in block.rows:
                    out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
                out.append("</table>")
            elif isinstance(block, Figure):
                out.append(f"<figure>{block.svg}<figcaption>{html.escape(block.caption)}</figcaption></figure>")
            elif isinstance(block, tuple):
                out.append(f"<p class='warning'>{_inline_code(block[1], 'html')}</p>")
            else:
                out.append(f"<p>{_inline_code(block, 'html')}</p>")
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out)


def to_markdown(sections: Sequence[Section], title: str) -> str:
    out = [f"# {title}", ""]
    for section in sections:
        out += [f"## {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, TableBlock):
                if block.caption:
                    out += [f"**{block.caption}**", ""]
                out.append("| " + " | ".join(block.header) + " |")
                out.append("|" + "|".join("---" for _ in block.header) + "|")
                out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in block.rows]
                out.append("")
            elif isinstance(block, Figure):
                out += [f"*Figure (drawn in index.html): {block.caption}*", ""]
            elif isinstance(block, tuple):
                out += [f"> **Warning:** {block[1]}", ""]
            else:
                out += [block, ""]
    return "\n".join(out)


def assemble(score_paths: Iterable[str | Path], run: RunInfo) -> tuple[str, str]:
    """(html, markdown) of the report."""
    scores = load_scores(score_paths)
    sections = build_sections(scores, run)
    title = "tabprobe report: is the model using the evidence in its tables?"
    return to_html(sections, title), to_markdown(sections, title)


def read_coverage(paths: Iterable[str | Path]) -> list[dict]:
    return [json.loads(Path(p).read_text()) for p in paths]
