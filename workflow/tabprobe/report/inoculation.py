"""Inoculation (paper section 7): Tables 9-12 beside the paper's, the learning rate each size
kept, and Liu et al.'s outcome of each inoculation with the changes that decide it."""

from __future__ import annotations

from dataclasses import dataclass

from .. import paper
from ..config.defaults import FULL_INOCULATION
from ..infotabs import SPLITS
from ..inoculation import CHALLENGE_SPLIT, Change, liu_outcome
from ..results import Index
from .blocks import Section, Stat, TableBlock
from .inputs import RunInfo


@dataclass(frozen=True)
class Experiment:
    """One inoculation experiment as score_inoculation summarised it."""

    name: str  # hypothesis or counterfactual
    summary: dict

    @property
    def table(self) -> str:  # the paper table whose probes it trains on: table4 or table7
        return self.summary["table"]

    @property
    def reference(self) -> dict:
        return paper.INOCULATION[self.name]

    @property
    def sizes(self) -> list[int]:
        """0 (the model before inoculation), then each number of challenge examples."""
        return [0] + [int(s) for s in self.summary["sizes"]]

    def model(self, size: int) -> str:
        return self.summary["before"] if size == 0 else self.summary["sizes"][str(size)]["model"]


def row_title(size: int) -> str:
    return f"{size} (w/o inoculation)" if size == 0 else str(size)


def accuracy_and_change(scores: Index, model: str, probe: str, split: str, label: str, inoculated: bool) -> list:
    """A model's accuracy and, once inoculated, its paired change from the model before."""
    accuracy = Stat.of(scores.get(model, probe, split, "accuracy", label))
    change = Stat.of(scores.get(model, probe, split, "accuracy_change", label), signed=True) if inoculated else ""
    return [accuracy, change]


def grid_text(plan: dict) -> str:
    grid = (
        f"learning rates {', '.join(f'{lr:g}' for lr in plan['learning_rates'])}, at most {plan['max_epochs']} "
        f"epoch(s), stopping after {plan['patience']} without a better dev accuracy on "
        f"{plan['dev_examples'] or 'all'} dev examples"
    )
    if all(plan.get(key) == value for key, value in FULL_INOCULATION.items()):
        return grid + " (the paper's)."
    if plan.get("full"):
        # A key the config writes holds under `full: true` (config.settings._plan).
        return (
            grid
            + ": `full: true`, with the config's own values where it sets them (the paper's: 1e-4, 5e-5, 1e-5, up to 30 epochs)."
        )
    return (
        grid
        + ". This is the CPU budget's reduced grid; `full: true` runs the paper's (1e-4, 5e-5, 1e-5, up to 30 epochs)."
    )


def original_splits_table(scores: Index, experiment: Experiment) -> TableBlock:
    """Paper Table 9 or 11: accuracy on the original test sets, before and after."""
    splits = [s for s in SPLITS if scores.get(experiment.model(0), "original", s, "accuracy")]
    rows = [
        [row_title(size)]
        + [
            c
            for s in splits
            for c in accuracy_and_change(scores, experiment.model(size), "original", s, "all", size > 0)
        ]
        for size in experiment.sizes
    ]
    for size, values in experiment.reference["original"].items():
        rows.append([f"paper: {row_title(size)}"] + [c for s in splits for c in (Stat.reference(values.get(s)), "")])
    return TableBlock(
        ["Examples"] + [f"{s}: {what}" for s in splits for what in ("accuracy", "change")],
        rows,
        caption=f"Paper {experiment.reference['tables'][0]} layout: the original test sets",
    )


def challenge_table(scores: Index, experiment: Experiment) -> TableBlock:
    """Paper Table 10 or 12: the challenge split without NEUTRAL, original and edited."""
    columns = [
        ("original", "EC", "Original (w/o NEUTRAL)"),
        (f"{experiment.table}:label_preserved", "all", "Label preserved"),
        (f"{experiment.table}:label_flipped", "all", "Label flipped"),
    ]
    rows = [
        [row_title(size)]
        + [
            c
            for probe, label, _ in columns
            for c in accuracy_and_change(scores, experiment.model(size), probe, CHALLENGE_SPLIT, label, size > 0)
        ]
        for size in experiment.sizes
    ]
    for size, values in experiment.reference["challenge"][CHALLENGE_SPLIT].items():
        rows.append([f"paper: {row_title(size)}"] + [c for v in values for c in (Stat.reference(v), "")])
    return TableBlock(
        ["Examples"] + [f"{title}: {what}" for _, _, title in columns for what in ("accuracy", "change")],
        rows,
        caption=f"Paper {experiment.reference['tables'][1]} layout: alpha1 without NEUTRAL "
        "(the paper's train rows are not run: inoculation trains on train)",
    )


def grid_table(experiment: Experiment) -> TableBlock:
    """What each size kept from the grid of learning rates."""
    rows = [
        [
            size,
            f"{v['learning_rate']:g}",
            "; ".join(f"{lr}: {acc:.2f}" for lr, acc in v["dev_accuracy_by_learning_rate"].items()),
            f"{v['dev_accuracy_before']:.2f}",
            f"{v['best_epoch']} of {v['epochs_run']} (max {v['max_epochs']})",
            str(v["train_examples"]),
        ]
        for size, v in experiment.summary["sizes"].items()
    ]
    header = ["Examples", "Learning rate kept", "Dev accuracy by learning rate", "Dev accuracy before", "Epoch kept"]
    return TableBlock(header + ["Trained on"], rows, caption="The grid: what each inoculation kept")


def outcomes_table(scores: Index, experiment: Experiment) -> TableBlock:
    """Liu et al.'s outcome of each size, judged as the paper judges it on each original test set
    it reports (alpha1, alpha2, alpha3: Tables 9 and 11), from the paired changes there and on the
    challenge set."""
    splits = [s for s in SPLITS if scores.get(experiment.model(0), "original", s, "accuracy")]
    rows = []
    for size in experiment.sizes[1:]:
        model = experiment.model(size)
        challenge = scores.get(model, f"{experiment.table}:challenge", CHALLENGE_SPLIT, "accuracy_change")
        cells, sentences = [str(size)], []
        for split in splits:
            original = scores.get(model, "original", split, "accuracy_change")
            if not (original and challenge and original["mean"] is not None and challenge["mean"] is not None):
                cells.append("–")
                continue
            number, sentence = liu_outcome(
                Change(original["mean"], original["ci_low"], original["ci_high"]),
                Change(challenge["mean"], challenge["ci_low"], challenge["ci_high"]),
            )
            cells.append(str(number) if number else "none")
            sentences.append(f"{split}: {sentence}")
        rows.append(cells + ["; ".join(sentences) or "no paired change to judge (no examples)"])
    return TableBlock(
        ["Examples"]
        + [f"Outcome, judged on {s}" for s in splits]
        + ["Decided by (change on the challenge set, both columns pooled, and on each original test set)"],
        rows,
        caption="Liu et al.'s outcomes on each original test set (paper section 7: both of its experiments are "
        "Outcome 3 on alpha1, alpha2 and alpha3)",
    )


def inoculation_sections(scores: Index, run: RunInfo) -> list[Section]:
    """A section per experiment: what was trained and how, then its four tables."""
    plan = run.inoculation_plan
    if not run.inoculation or not plan:
        return []
    sections = []
    for name, summary in run.inoculation.items():
        experiment = Experiment(name, summary)
        section = Section(f"Inoculation on {name} examples (paper {' and '.join(experiment.reference['tables'])})")
        section.blocks.append(
            f"`{summary['model']}` fine-tuned further on {', '.join(str(s) for s in experiment.sizes[1:])} challenge "
            "examples from train (nested: each smaller set inside the larger; one example per gold example from the "
            f"probes of paper {experiment.table.replace('table', 'Table ')}), one job per size and learning rate, "
            f"keeping per size the learning rate with the best dev accuracy. Grid: {grid_text(plan)}"
            " Change: the inoculated model minus the model before, on the same examples and samplings (points, 95% CI). "
            "The paper's RoBERTa-large rows (learning rate 1e-5) follow this run's."
        )
        section.blocks += [
            original_splits_table(scores, experiment),
            challenge_table(scores, experiment),
            grid_table(experiment),
            outcomes_table(scores, experiment),
        ]
        sections.append(section)
    return sections
