"""Inoculation (paper section 7): Tables 9-12 beside the paper's, the learning rate each size
kept, and Liu et al.'s outcome of each inoculation with the changes that decide it."""

from __future__ import annotations

from .. import paper
from ..infotabs import SPLITS
from ..inoculation import CHALLENGE_SPLIT, Change, liu_outcome
from ..results import Index
from .blocks import Section, Stat, TableBlock
from .inputs import RunInfo


def inoculation_sections(scores: Index, run: RunInfo) -> list[Section]:
    """Paper section 7: Tables 9-12 beside the paper's, the learning rate each size kept, and
    Liu et al.'s outcome of each inoculation with the changes that decide it."""
    plan = run.inoculation_plan
    if not run.inoculation or not plan:
        return []
    full = plan.get("full")
    grid = (
        f"learning rates {', '.join(f'{lr:g}' for lr in plan['learning_rates'])}, at most {plan['max_epochs']} "
        f"epoch(s), stopping after {plan['patience']} without a better dev accuracy on "
        f"{plan['dev_examples'] or 'all'} dev examples"
    )
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
            + (
                " (the paper's)."
                if full
                else ". This is the CPU budget's reduced grid; `full: true` runs the paper's "
                "(1e-4, 5e-5, 1e-5, up to 30 epochs)."
            )
            + " Change: the inoculated model minus the model before, on the same examples and samplings (points, 95% CI). "
            "The paper's RoBERTa-large rows (learning rate 1e-5) follow this run's."
        )

        def row_title(size: int) -> str:
            return f"{size} (w/o inoculation)" if size == 0 else str(size)

        splits = [
            s
            for s in SPLITS
            if scores.get(model=names[0], probe="original", split=s, statistic="accuracy", label="all")
        ]
        rows = []
        for size in sizes:
            cells = [row_title(size)]
            for split in splits:
                cells.append(
                    Stat.of(
                        scores.get(model=names[size], probe="original", split=split, statistic="accuracy", label="all")
                    )
                )
                cells.append(
                    Stat.of(
                        scores.get(
                            model=names[size], probe="original", split=split, statistic="accuracy_change", label="all"
                        ),
                        signed=True,
                    )
                    if size
                    else ""
                )
            rows.append(cells)
        for size, values in reference["original"].items():
            rows.append(
                [f"paper: {row_title(size)}"] + [c for s in splits for c in (Stat.reference(values.get(s)), "")]
            )
        section.blocks.append(
            TableBlock(
                ["Examples"] + [f"{s}: {what}" for s in splits for what in ("accuracy", "change")],
                rows,
                caption=f"Paper {reference['tables'][0]} layout: the original test sets",
            )
        )
        columns = [
            ("original", "EC", "Original (w/o NEUTRAL)"),
            (f"{table}:label_preserved", "all", "Label preserved"),
            (f"{table}:label_flipped", "all", "Label flipped"),
        ]
        rows = []
        for size in sizes:
            cells = [row_title(size)]
            for probe, label, _ in columns:
                cells.append(
                    Stat.of(
                        scores.get(
                            model=names[size], probe=probe, split=CHALLENGE_SPLIT, statistic="accuracy", label=label
                        )
                    )
                )
                cells.append(
                    Stat.of(
                        scores.get(
                            model=names[size],
                            probe=probe,
                            split=CHALLENGE_SPLIT,
                            statistic="accuracy_change",
                            label=label,
                        ),
                        signed=True,
                    )
                    if size
                    else ""
                )
            rows.append(cells)
        for size, values in reference["challenge"][CHALLENGE_SPLIT].items():
            rows.append([f"paper: {row_title(size)}"] + [c for v in values for c in (Stat.reference(v), "")])
        section.blocks.append(
            TableBlock(
                ["Examples"] + [f"{title}: {what}" for _, _, title in columns for what in ("accuracy", "change")],
                rows,
                caption=f"Paper {reference['tables'][1]} layout: alpha1 without NEUTRAL "
                "(the paper's train rows are not run: inoculation trains on train)",
            )
        )
        grid_rows = [
            [
                str(size),
                f"{v['learning_rate']:g}",
                "; ".join(f"{lr}: {acc:.2f}" for lr, acc in v["dev_accuracy_by_learning_rate"].items()),
                f"{v['dev_accuracy_before']:.2f}",
                f"{v['best_epoch']} of {v['epochs_run']} (max {v['max_epochs']})",
                str(v["train_examples"]),
            ]
            for size, v in ((int(s), v) for s, v in summary["sizes"].items())
        ]
        section.blocks.append(
            TableBlock(
                [
                    "Examples",
                    "Learning rate kept",
                    "Dev accuracy by learning rate",
                    "Dev accuracy before",
                    "Epoch kept",
                    "Trained on",
                ],
                grid_rows,
                caption="The grid: what each inoculation kept",
            )
        )
        outcomes = []
        for size in sizes[1:]:
            original = scores.get(
                model=names[size], probe="original", split=CHALLENGE_SPLIT, statistic="accuracy_change", label="all"
            )
            challenge = scores.get(
                model=names[size],
                probe=f"{table}:challenge",
                split=CHALLENGE_SPLIT,
                statistic="accuracy_change",
                label="all",
            )
            if not (original and challenge and original["mean"] is not None and challenge["mean"] is not None):
                outcomes.append([str(size), "–", "no paired change to judge (no examples)"])
                continue
            number, sentence = liu_outcome(
                Change(original["mean"], original["ci_low"], original["ci_high"]),
                Change(challenge["mean"], challenge["ci_low"], challenge["ci_high"]),
            )
            outcomes.append([str(size), str(number) if number else "none", sentence])
        section.blocks.append(
            TableBlock(
                [
                    "Examples",
                    "Outcome",
                    "Decided by (change on the challenge set: both columns pooled; on the original: alpha1)",
                ],
                outcomes,
                caption="Liu et al.'s outcomes (paper section 7: both of its experiments are Outcome 3)",
            )
        )
        sections.append(section)
    return sections
