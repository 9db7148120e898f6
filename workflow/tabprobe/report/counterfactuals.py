"""Pre-trained knowledge (paper section 6): accuracy on counterfactual tables (Table 7) and the
paired correctness of each counterfactual, its original and the hypothesis-only model (Table 8)."""

from __future__ import annotations

from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.evidence import relevance_note
from tabprobe.report.inputs import RunInfo
from tabprobe.report.tables import DROP_EXPLAINED, pooled_table_blocks, probe_accuracy_table
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index

TABLE8_ROWS = [
    ("✓", "✗", "✗", "100"),
    ("✗", "✓", "✗", "010"),
    ("✓", "✗", "✓", "101"),
    ("✗", "✓", "✓", "011"),
    ("✓", "✓", "✓", "111"),
    ("✓", "✓", "✗", "110"),
    ("✗", "✗", "✓", "001"),
    ("✗", "✗", "✗", "000"),
]


def counterfactual_section(scores: Index, run: RunInfo) -> Section | None:
    """Paper section 6: Table 7 (accuracy on counterfactuals) and Table 8 (paired correctness)."""
    members = run.plan.pooled("table7")
    # The paper's hand-made sets (a need whose examples people made, `Need.fixed_set`), registered.
    by_hand = [p for p in run.plan.registered_pooled("table7")["label_flipped"] if p in run.plan.catalog.fixed_sets]
    by_hand_hint = f"none (the paper made these by hand: add probe {', '.join(by_hand)})"
    if not any(members.values()):
        return None
    section = Section(
        "Counterfactuals: does the model read the table or recall the world? (paper section 6, Tables 7-8)"
    )
    section.blocks.append(
        "Tables whose facts no longer match the real world, with hypotheses whose gold label is known. Label "
        "preserved: one counterfactual per gold ENTAIL/CONTRADICT example, sampled (seeded) from "
        f"{', '.join(f'`{p}` ({run.plan.catalog.made_by[p]}-made)' for p in members['label_preserved']) or 'none'}; label flipped: "
        f"{', '.join(f'`{p}` ({run.plan.catalog.made_by[p]}-made)' for p in members['label_flipped']) or by_hand_hint}. "
        "A model that reasons from its table keeps its accuracy; one that answers from what it memorised "
        "loses it. " + relevance_note(run)
    )
    if any(p in run.probes for p in by_hand):
        section.blocks.append(run.plan.dataset.report.texts["human_counterfactuals"])
    section.blocks += pooled_table_blocks(scores, run, "table7", paper.TABLE7)
    section.blocks.append(DROP_EXPLAINED)
    section.blocks.append(
        probe_accuracy_table(
            scores,
            run,
            [p for c in members for p in members[c]],
            "Per probe: accuracy against the expected label; drop from the same gold examples unperturbed",
        )
    )
    for column in members:
        name = f"table7:{column}"
        for model in run.models:
            splits = [
                s
                for s in run.plan.dataset.splits
                if scores.get(model=model, probe=name, split=s, statistic="paired_correctness_pct", label="111")
            ]
            if not splits:
                continue
            rows = []
            for cf, orig, hypo, cell in TABLE8_ROWS:
                cells = [cf, orig, hypo]
                for split in splits:
                    cells.append(
                        Stat.of(
                            scores.get(
                                model=model, probe=name, split=split, statistic="paired_correctness_pct", label=cell
                            )
                        )
                    )
                reference = paper.TABLE8.get(cell, {}) if column == "label_flipped" else {}
                cells += [Stat.reference(reference.get(s)) if reference.get(s) is not None else "" for s in splits]
                rows.append(cells)
            section.blocks.append(
                TableBlock(
                    ["C-THP (counterfactual)", "O-THP (original)", "O-Hypo (hypothesis-only model, original)"]
                    + [f"% of examples · {s}" for s in splits]
                    + [f"paper · {s}" for s in splits],
                    rows,
                    caption=f"Paper Table 8 layout, {column.replace('_', ' ')} counterfactuals: model {model} on each counterfactual and its "
                    "original, beside the hypothesis-only model on the original (✓ correct, ✗ wrong)",
                )
            )
    section.blocks += run.examples_of(p for c in members for p in members[c])
    section.blocks.append(
        "Table 8 reading: ✗ ✓ ✗ (right on the original, wrong on its counterfactual, and the hypothesis alone does not "
        "give the answer) points at pre-trained knowledge; ✗ ✓ ✓ at hypothesis artifacts together with it. The paper "
        "lists only the first four rows, on its hand-made label-flipped sets."
    )
    return section
