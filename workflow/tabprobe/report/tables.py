"""Tables several parts of the report share: accuracy and paired drop per probe, the pooled
columns of paper Tables 4 and 7, and a section for a family of probes judged by a label."""

from __future__ import annotations

from collections.abc import Sequence

from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index

PAIRED_DROP = (
    "Drop: accuracy of the same gold examples before the edit minus after it, computed on the same "
    "samplings (a paired comparison; positive = the edit hurt), with a percentile bootstrap interval."
)
DROP_EXPLAINED = (
    PAIRED_DROP + " Input changed: the share of examples whose tokens, as the model saw them, differ from the "
    "unperturbed example's (an edit to a row cut off past max_length never reaches the model)."
)


def probe_accuracy_table(
    scores: Index,
    run: RunInfo,
    probe_names: Sequence[str],
    caption: str,
    reference: dict[str, dict[str, float]] | None = None,
) -> TableBlock:
    """One row per probe and model: per split, accuracy against the expected label, the paired
    drop from the unperturbed examples and the share whose model input changed; `reference`
    adds the paper's accuracy."""
    splits = scores.splits_with(probe_names)
    rows = []
    for probe_name in probe_names:
        for model in run.models:
            cells = []
            for split in splits:
                accuracy = scores.get(model=model, probe=probe_name, split=split, statistic="accuracy", label="all")
                paper_value = (reference or {}).get(probe_name, {}).get(split)
                cells += [
                    Stat.of(accuracy, paper=paper_value),
                    Stat.of(
                        scores.get(model=model, probe=probe_name, split=split, statistic="accuracy_drop", label="all"),
                        signed=True,
                    ),
                    Stat.of(
                        scores.get(
                            model=model, probe=probe_name, split=split, statistic="input_changed_pct", label="all"
                        )
                    ),
                ]
            if any(c.shown for c in cells):
                rows.append([probe_name, model] + cells)
    header = ["Probe", "Model"] + [
        f"{s}: {what}" for s in splits for what in ("accuracy", "drop (paired, 95% CI)", "input changed (%)")
    ]
    return TableBlock(header, rows, caption=caption)


FLIP_DIRECTIONS = ("E->C", "C->E")
ONE_SIDED = "one-sided ({} only): not pooled"


def flip_directions(scores: Index, model: str, name: str, split: str) -> dict[str, dict]:
    """The directions (FLIP_DIRECTIONS) a label-flipping column or probe holds examples of, with
    each one's accuracy row."""
    found = {
        d: scores.get(model=model, probe=name, split=split, statistic="accuracy", label=d) for d in FLIP_DIRECTIONS
    }
    return {d: row for d, row in found.items() if row and row["n"]}


def one_sided(directions: dict[str, dict]) -> str | None:
    """ "E->C" when a flipped column holds that direction alone (None: both, or none)."""
    return next(iter(directions)) if len(directions) == 1 else None


def pooled_table_blocks(scores: Index, run: RunInfo, table: str, reference: dict) -> list[TableBlock]:
    """Paper Table 4 or 7 per split: accuracy on the gold examples (w/o NEUTRAL) and on one sampled
    label-preserving / label-flipping edit per gold example, with the paired drops, and the
    paper's rows beneath. The flipped column is shown per direction (E->C, C->E) with the accuracy
    of always answering CONTRADICT beside it; its pooled number and drop only when it holds both
    directions: on E->C edits alone a model that answers CONTRADICT to every edit scores 100%."""
    members = run.plan.pooled(table)
    columns = list(members)
    names = [f"{table}:{c}" for c in columns]
    flipped = f"{table}:label_flipped"
    splits = scores.splits_with(names)
    blocks = []
    for split in splits:
        rows = []
        for model in run.models:
            original = scores.get(model=model, probe=run.plan.baseline, split=split, statistic="accuracy", label="EC")
            directions = flip_directions(scores, model, flipped, split)
            side = one_sided(directions)
            cells = [model, Stat.of(original)]
            for statistic in ("accuracy", "accuracy_drop"):
                for name in names:
                    if name == flipped and side:  # a pooled number would credit the cue follower
                        cells.append(ONE_SIDED.format(side.replace("->", "→")))
                    else:
                        row = scores.get(model=model, probe=name, split=split, statistic=statistic, label="all")
                        cells.append(Stat.of(row, signed=statistic == "accuracy_drop"))
                if statistic == "accuracy":
                    cells += [Stat.of(directions.get(d)) for d in FLIP_DIRECTIONS]
                    cells.append(Stat.of(scores.get(model=model, probe=flipped, split=split, statistic="cue_accuracy")))
            rows.append(cells)
        for name, values in reference.get(split, {}).items():
            rows.append(
                [f"paper: {name}"]
                + [Stat.reference(values[k]) for k in (paper.UNPERTURBED, *columns)]
                + ["", "", "", "", ""]
            )
        blocks.append(
            TableBlock(
                [
                    "Model",
                    "Original (w/o NEUTRAL)",
                    "Label preserved",
                    "Label flipped (both directions)",
                    "Flipped E→C",
                    "Flipped C→E",
                    "Always CONTRADICT, on the flipped",
                    "Drop, preserved (paired, 95% CI)",
                    "Drop, flipped (paired, 95% CI)",
                ],
                rows,
                caption=f"Split {split}. Label flipped is shown per direction, with n; pooled only where both "
                "directions are present. Always CONTRADICT: the accuracy of a model that answers CONTRADICT to "
                "every edited example, the score a cue follower gets on the same examples",
            )
        )
    return blocks


def family_probes(run: RunInfo, family: str) -> list[str]:
    """The run's probes of a family ("" : probes of no family judged by an expected label)."""
    return [
        p
        for p in run.probes
        if p != run.plan.baseline
        and run.plan.probe(p).family == family
        and (family or run.plan.probe(p).judged_by == "expected")
    ]


def probe_family_section(
    scores: Index,
    run: RunInfo,
    family: str,
    title: str,
    intro: str,
    caption: str,
    reference: dict[str, dict[str, float]] | None = None,
) -> Section | None:
    """A family of probes judged by a label (family_probes): accuracy and paired drop per probe and
    model, what each probe does, and its failing examples; None where the run has none of them."""
    names = family_probes(run, family)
    if not names:
        return None
    section = Section(title)
    section.blocks.append(intro)
    section.blocks.append(probe_accuracy_table(scores, run, names, caption, reference=reference))
    for name in names:
        section.blocks.append(
            f"`{name}`: {run.plan.probe(name).description} ({run.plan.probe(name).paper_reference or 'no paper reference'})"
        )
    section.blocks += run.examples_of(names)
    return section
