"""Inoculation (paper section 7): Tables 9-12 beside the paper's, the learning rate each size
kept, and Liu et al.'s outcome of each inoculation with the changes that decide it."""

from __future__ import annotations

from dataclasses import dataclass

from tabprobe.config import DEFENSE_BASELINE, defense_probe
from tabprobe.config.defaults import FULL_INOCULATION
from tabprobe.config.names import CHALLENGE_SPLIT
from tabprobe.data.datasets import paper_dataset
from tabprobe.inoculation.outcomes import Change, liu_outcome
from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring import paper
from tabprobe.scoring.results import Index


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


SELECTION = {
    "per_size": "each size keeps the rate with its best dev accuracy",
    # Paper section 7: "we tried learning rates of 10-4, 5x10-5 and 10-5 ... with early stopping
    # based on the development set accuracy ... The model performance was best with the learning
    # rate of 10-5, which we used throughout the inoculation experiments."
    "shared": "one rate for every size and both experiments, the one with the best mean dev accuracy over "
    "them (the paper's selection: it tried the three rates, compared them on the development set and used "
    "the best, 1e-5, throughout)",
}


def grid_text(plan: dict) -> str:
    grid = (
        f"learning rates {', '.join(f'{lr:g}' for lr in plan['learning_rates'])}, at most {plan['max_epochs']} "
        f"epoch(s), stopping after {plan['patience']} without a better dev accuracy on "
        f"{plan['dev_examples'] or 'all'} dev examples; {SELECTION[plan['learning_rate_selection']]}"
    )
    if all(plan.get(key) == value for key, value in FULL_INOCULATION.items()):
        return grid + " (the paper's)."
    if plan.get("full"):
        # A key the config writes holds under `full: true` (config.settings._plan).
        return (
            grid
            + ": `full: true`, with the config's own values where it sets them (the paper's: 1e-4, 5e-5, 1e-5, up to 30 epochs, one "
            "rate shared by every size and experiment)."
        )
    return (
        grid
        + ". This is the CPU budget's reduced grid; `full: true` runs the paper's (1e-4, 5e-5, 1e-5, up to 30 epochs, "
        "one rate shared by every size and experiment)."
    )


def _baseline() -> str:
    """The unperturbed probe of the paper's dataset, whose examples inoculation fine-tunes and tests on."""
    return paper_dataset().baseline_probe


def _tested_splits(scores: Index, experiment: Experiment) -> list[str]:
    """The paper dataset's splits (in its order) the model before inoculation was tested on."""
    return [s for s in paper_dataset().splits if scores.get(experiment.model(0), _baseline(), s, "accuracy")]


def original_splits_table(scores: Index, experiment: Experiment) -> TableBlock:
    """Paper Table 9 or 11: accuracy on the original test sets, before and after."""
    splits = _tested_splits(scores, experiment)
    rows = [
        [row_title(size)]
        + [
            c
            for s in splits
            for c in accuracy_and_change(scores, experiment.model(size), _baseline(), s, "all", size > 0)
        ]
        for size in experiment.sizes
    ]
    for size, values in experiment.reference[paper.UNPERTURBED].items():
        rows.append([f"paper: {row_title(size)}"] + [c for s in splits for c in (Stat.reference(values.get(s)), "")])
    return TableBlock(
        ["Examples"] + [f"{s}: {what}" for s in splits for what in ("accuracy", "change")],
        rows,
        caption=f"Paper {experiment.reference['tables'][0]} layout: the original test sets",
    )


# The row groups of paper Tables 10 and 12, as the paper labels them.
CHALLENGE_SETS = {"train": "Train Set (w/o NEUTRAL)", CHALLENGE_SPLIT: "α1 Set (w/o NEUTRAL)"}


def challenge_table(scores: Index, experiment: Experiment, split: str = CHALLENGE_SPLIT) -> TableBlock | None:
    """Paper Table 10 or 12, one of its row groups: the challenge set of `split` (train: what the
    model was fine-tuned on; alpha1: the test), Original being the gold examples it was made from,
    without NEUTRAL (None: not run on that split)."""
    columns = [
        (f"{experiment.table}:{_baseline()}", "EC", "Original"),
        (f"{experiment.table}:label_preserved", "all", "Label Preserved"),
        (f"{experiment.table}:label_flipped", "all", "Label Flipped"),
    ]
    if not any(scores.get(experiment.model(0), probe, split, "accuracy", label) for probe, label, _ in columns):
        return None
    rows = [
        [row_title(size)]
        + [
            c
            for probe, label, _ in columns
            for c in accuracy_and_change(scores, experiment.model(size), probe, split, label, size > 0)
        ]
        for size in experiment.sizes
    ]
    for size, values in experiment.reference["challenge"][split].items():
        rows.append([f"paper: {row_title(size)}"] + [c for v in values for c in (Stat.reference(v), "")])
    what = (
        "the challenge examples the inoculations draw from, as the paper reports them (the inoculated "
        "models trained on part of these)"
        if split == "train"
        else "the test challenge set"
    )
    return TableBlock(
        ["Examples"] + [f"{title}: {what}" for _, _, title in columns for what in ("accuracy", "change")],
        rows,
        caption=f"Paper {experiment.reference['tables'][1]} layout, {CHALLENGE_SETS[split]}: {what}; Original is "
        "the gold examples the challenge set was made from",
    )


def grid_table(experiment: Experiment) -> TableBlock:
    """What each size kept from the grid of learning rates."""
    rows = [
        [
            size,
            f"{v['learning_rate']:g}",
            "; ".join(f"{lr}: {acc:.2f}" for lr, acc in v["dev_accuracy_by_learning_rate"].items())
            + (
                " (mean over "
                + ", ".join(v["selected_over"])
                + ": "
                + "; ".join(f"{lr}: {acc:.2f}" for lr, acc in v["mean_dev_accuracy_by_learning_rate"].items())
                + ")"
                if v.get("selection") == "shared"
                else ""
            ),
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
    splits = _tested_splits(scores, experiment)
    rows = []
    for size in experiment.sizes[1:]:
        model = experiment.model(size)
        challenge = scores.get(model, f"{experiment.table}:challenge", CHALLENGE_SPLIT, "accuracy_change")
        cells, sentences = [str(size)], []
        for split in splits:
            original = scores.get(model, _baseline(), split, "accuracy_change")
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
        if defense_probe(name):
            continue
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
        if challenge_table(scores, experiment, "train"):
            trained_rows = (
                f"{experiment.reference['tables'][1]}'s train rows (Train Set (w/o NEUTRAL)): every model on the "
                "challenge examples from train that the inoculations draw from, and on their originals."
            )
        else:
            trained_rows = (
                f"{experiment.reference['tables'][1]}'s train rows are not run here (`train_rows: true`, on under "
                "`full: true`)."
            )
        section.blocks[-1] += " " + trained_rows
        section.blocks += [original_splits_table(scores, experiment)]
        section.blocks += [t for t in (challenge_table(scores, experiment, s) for s in CHALLENGE_SETS) if t]
        section.blocks += [grid_table(experiment), outcomes_table(scores, experiment)]
        sections.append(section)
    return sections


def _difference(after: dict | None, before: dict | None) -> Stat:
    """An unpaired difference of two means (different examples: no interval), in points."""
    if not after or not before or after["mean"] is None or before["mean"] is None:
        return Stat(None, signed=True)
    return Stat(after["mean"] - before["mean"], signed=True)


def defense_section(scores: Index, run: RunInfo) -> Section | None:
    """The Defense setting of numerical-qa-robustness (section 4.3, Table 3) beside the plain
    inoculation: per numeric perturbation, the model before on its alpha1 examples (Attack) and
    after fine-tuning on its train examples (Defense), each as the change from the template probe's
    (DEFENSE_BASELINE) accuracy (the paper's "Original": the comparisons before they were perturbed), the Defense's
    paired gain over the Attack, and what it costs on the original alpha1."""
    plan = run.inoculation_plan
    defenses = {name: s for name, s in (run.inoculation or {}).items() if defense_probe(name)}
    if not plan or not defenses:
        return None
    rows = []
    for name, summary in defenses.items():
        experiment, probe = Experiment(name, summary), defense_probe(name)
        before = experiment.model(0)
        original = scores.get(before, DEFENSE_BASELINE, CHALLENGE_SPLIT, "accuracy")
        attack = scores.get(before, f"{name}:defense", CHALLENGE_SPLIT, "accuracy")
        for size in experiment.sizes[1:]:
            model = experiment.model(size)
            defended = scores.get(model, f"{name}:defense", CHALLENGE_SPLIT, "accuracy")
            rows.append(
                [
                    probe,
                    str(size),
                    f"{summary['sizes'][str(size)]['learning_rate']:g}",
                    Stat.of(original),
                    Stat.of(attack),
                    _difference(attack, original),
                    Stat.of(defended),
                    _difference(defended, original),
                    Stat.of(scores.get(model, f"{name}:defense", CHALLENGE_SPLIT, "accuracy_change"), signed=True),
                    Stat.of(scores.get(model, _baseline(), CHALLENGE_SPLIT, "accuracy_change"), signed=True),
                ]
            )
    section = Section("Defense (numerical-qa-robustness section 4.3), beside inoculation")
    section.blocks.append(
        "The numerical-robustness paper's two settings: Attack, a model trained on the original data tested on "
        'perturbed test examples (test*), and Defense, perturbations applied to "all of training, validation, and '
        'testing split" (train on train*, validate on val*, test on test*), to see "to what extent the performance '
        'drop can be alleviated by using the perturbations as a data augmentation approach". Here the Defense is a '
        f"variant of the inoculation above: `{run.inoculation_plan['model']}` fine-tuned further on the sizes' nested "
        "subsets of one numeric probe's train examples, stopped early on that probe's dev examples, and tested on its "
        f"alpha1 examples; the paper instead retrains on the whole perturbed training split. Original: "
        f"`{DEFENSE_BASELINE}` on alpha1, the comparisons before the perturbation, scored by the model before (the "
        "paper's Table 3 reports both settings as the change from it). Gain: the defended model minus the model before "
        "on the same perturbed examples (paired, 95% CI); the last column is what the Defense costs on the original "
        "alpha1 (paired). Learning rates: " + grid_text(plan)
    )
    section.blocks.append(
        TableBlock(
            [
                "Perturbation",
                "Examples",
                "Learning rate kept",
                f"Original ({DEFENSE_BASELINE}, before)",
                "Attack (before)",
                "Attack: change from Original",
                "Defense (after)",
                "Defense: change from Original",
                "Defense: gain over Attack",
                "Original alpha1: change",
            ],
            rows,
            caption="Attack and Defense per numeric perturbation (accuracy, points)",
        )
    )
    return section
