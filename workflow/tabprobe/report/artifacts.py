"""Annotation artifacts (paper section 4): Table 4's hypothesis edits that keep or flip the label,
and the premise controls of the paper dataset's own paper (Tables 3-4)."""

from __future__ import annotations

from tabprobe.report.blocks import Section
from tabprobe.report.coverage import curation_note
from tabprobe.report.inputs import RunInfo
from tabprobe.report.tables import DROP_EXPLAINED, pooled_table_blocks, probe_accuracy_table, probe_family_section
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index


def artifacts_section(scores: Index, run: RunInfo) -> Section | None:
    """Paper Table 4: accuracy on the gold examples (w/o NEUTRAL) and on one sampled
    label-preserving / label-flipping hypothesis edit per gold example."""
    members = run.plan.pooled("table4")
    if not any(members.values()):
        return None
    section = Section("Annotation artifacts: hypothesis edits (paper section 4, Table 4)")
    section.blocks.append(
        f"Original: accuracy of probe `{run.plan.baseline}` on the gold ENTAIL and CONTRADICT examples (NEUTRAL is "
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
    section.blocks.append(
        probe_accuracy_table(
            scores,
            run,
            [p for c in members for p in members[c]],
            "Per probe: accuracy against the expected label; drop from the same gold examples unperturbed "
            "(lower is better)",
        )
    )
    section.blocks += run.examples_of(p for c in members for p in members[c])
    return section


def premise_controls_section(scores: Index, run: RunInfo) -> Section | None:
    """The paper dataset's own paper, Tables 3-4: the table removed, replaced by a dummy, or swapped for another."""
    return probe_family_section(
        scores,
        run,
        "premise_control",
        f"Premise controls ({run.plan.dataset.title} paper Tables 3 and 4)",
        run.plan.dataset.report.texts["premise_controls"] + DROP_EXPLAINED,
        "Accuracy (mean (std), n; paired drop: here a larger drop is better, it shows the model reads its premise)",
        reference=paper.PREMISE_CONTROLS,
    )
