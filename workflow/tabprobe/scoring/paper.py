"""Reference numbers from the papers, shown beside this run's (RoBERTa-large, Table as a Paragraph).

Source: the tables of Gupta et al., "Is My Model Using the Right Evidence? Systematic Probes for
Examining Evidence-Based Tabular Reasoning" (and of the dataset's own paper, Gupta et al. 2020, where a comment says so).
Values are percentages.
"""

from tabprobe.data.datasets import PublishedAccuracy

# The column of the paper's tables (4, 7, 9 and 11) that holds the unperturbed examples' numbers.
UNPERTURBED = "original"

# Table 1: accuracy on the unperturbed splits.
TABLE1_ACCURACY = {
    "RoBERTa-large (premise + hypothesis)": {"dev": 75.55, "alpha1": 74.88, "alpha2": 65.55, "alpha3": 64.94},
    "Hypothesis only": {"dev": 60.51, "alpha1": 60.48, "alpha2": 48.26, "alpha3": 48.89},
    "Human": {"dev": 79.78, "alpha1": 84.04, "alpha2": 83.88, "alpha3": 79.33},
}

# Table 1 as the accuracy section prints it beside the run's (the dataset's ReportPart.published_accuracy).
TABLE1 = PublishedAccuracy(
    rows=TABLE1_ACCURACY,
    hypothesis_only_row="Hypothesis only",
    premise_row="RoBERTa-large (premise + hypothesis)",
    source="Paper Table 1 (RoBERTa-large) for reference.",
    gaps="Gap to the paper's Table 1 (majority baseline: 33.3)",
)

# The invalid-transition % of the table probes (section 5, Tables 5, 6, 13-17) are declared by each
# probe in its own module (`PROBE.paper_numbers`); invalid_transitions() gathers them.


def invalid_transitions() -> dict[str, dict]:
    """probe -> {figure, table, values: label -> split -> %}, for every registered probe the paper
    printed invalid transitions for (imports every probe module)."""
    from tabprobe.probes import REGISTRY, get_probe

    numbers = {name: get_probe(name).paper_numbers for name in REGISTRY}
    return {name: n.as_reference() for name, n in numbers.items() if n and n.invalid_transition_pct}


# Section 5.3: the model's evidence (rows whose deletion changes its prediction) against the
# human-annotated relevant rows, over 4,600 dev/test ENTAIL/CONTRADICT pairs (RoBERTa-large);
# percentages of those pairs. "ignores_table" is 88% of the 52% (46% absolute).
EVIDENCE_SELECTION = {
    ("evidence_precision", "macro"): 41.0,
    ("evidence_recall", "macro"): 40.9,
    ("uses_all_relevant_pct", "all"): 27.0,
    ("uses_some_relevant_pct", "all"): 21.0,
    ("uses_wrong_or_no_rows_pct", "all"): 52.0,
    ("ignores_table_pct", "all"): 46.0,
    ("original_accuracy", "all"): 70.0,
    ("uses_all_relevant_pct", "correct"): 21.0,
    ("uses_some_relevant_pct", "correct"): 12.0,
    ("uses_wrong_or_no_rows_pct", "correct"): 37.0,
}

# Table 7: counterfactuals without NEUTRAL; mean (std) over 100 samplings of 80%. Label
# preserved: the automatic row and title swaps; label flipped: made by hand (885 train, 942 alpha1).
TABLE7 = {
    "train": {
        "Prem+Hypo": {"original": (94.38, 0.39), "label_preserved": (78.53, 0.65), "label_flipped": (48.70, 0.72)},
        "Hypo-Only": {"original": (99.94, 0.06), "label_preserved": (82.23, 0.65), "label_flipped": (0.06, 0.01)},
    },
    "alpha1": {
        "Prem+Hypo": {"original": (71.99, 0.69), "label_preserved": (69.65, 0.78), "label_flipped": (44.01, 0.72)},
        "Hypo-Only": {"original": (60.89, 0.76), "label_preserved": (58.19, 0.91), "label_flipped": (27.68, 0.65)},
    },
}

# Table 8 (on the label-flipped counterfactuals): % of examples by correctness of the premise
# model on the counterfactual (C-THP) and on the original (O-THP), and of the hypothesis-only
# model on the original (O-Hypo), keyed as in scoring.pooled_columns.PAIRED_CORRECTNESS ("010": C-THP wrong,
# O-THP right, O-Hypo wrong). The paper lists these four cells only.
TABLE8 = {
    "100": {"train": 0.00, "alpha1": 11.43},
    "010": {"train": 0.00, "alpha1": 11.79},
    "101": {"train": 3.57, "alpha1": 6.48},
    "011": {"train": 49.36, "alpha1": 33.12},
}

# Table 4: accuracy on gold examples without NEUTRAL ("original"), and on one sampled
# label-preserving / label-flipping hypothesis perturbation per gold example; mean (std) over
# 100 samplings of 80%.
TABLE4 = {
    "train": {
        "Prem+Hypo": {"original": (99.44, 0.06), "label_preserved": (92.98, 0.20), "label_flipped": (53.92, 0.28)},
        "Hypo-Only": {"original": (96.39, 0.13), "label_preserved": (70.23, 0.35), "label_flipped": (19.23, 0.27)},
    },
    "alpha1": {
        "Prem+Hypo": {"original": (68.94, 0.76), "label_preserved": (69.56, 0.77), "label_flipped": (51.48, 0.86)},
        "Hypo-Only": {"original": (63.52, 0.75), "label_preserved": (60.27, 0.85), "label_flipped": (31.02, 0.63)},
    },
}

# The dataset's paper (Gupta et al. 2020) Table 3 (RoBERTa-large, hypothesis only) and Table 4
# (RoBERTa-large trained and tested with a dummy or a randomly swapped premise): accuracy.
PREMISE_CONTROLS = {
    "hypothesis_only": TABLE1_ACCURACY["Hypothesis only"],
    "dummy_premise": {"dev": 60.02, "alpha1": 59.78, "alpha2": 48.91, "alpha3": 46.37},
    "swapped_table": {"dev": 62.94, "alpha1": 65.11, "alpha2": 52.55, "alpha3": 50.21},
}

# Section 7, inoculation by fine-tuning RoBERTa-large (learning rate 1e-5, the best of the grid):
# accuracy on the original test sets (Tables 9 and 11) and on the perturbed sets without NEUTRAL
# (Tables 10 and 12: original, label preserved, label flipped), by the number of inoculation
# examples (0: before). Table 9/10: inoculated on hypothesis perturbations; 11/12: on counterfactuals.
INOCULATION = {
    "hypothesis": {
        "tables": ("Table 9", "Table 10"),
        "original": {
            0: {"alpha1": 74.88, "alpha2": 65.55, "alpha3": 64.94},
            100: {"alpha1": 67.44, "alpha2": 62.17, "alpha3": 58.51},
            200: {"alpha1": 67.34, "alpha2": 61.88, "alpha3": 58.61},
            300: {"alpha1": 67.24, "alpha2": 61.84, "alpha3": 58.62},
        },
        "challenge": {
            "alpha1": {
                0: (68.94, 69.56, 51.48),
                100: (68.05, 65.67, 57.91),
                200: (68.37, 66.29, 57.49),
                300: (68.36, 66.29, 57.49),
            },
            "train": {
                0: (99.44, 92.98, 53.92),
                100: (97.24, 95.58, 79.25),
                200: (97.24, 95.65, 78.75),
                300: (97.24, 95.64, 78.74),
            },
        },
    },
    "counterfactual": {
        "tables": ("Table 11", "Table 12"),
        "original": {
            0: {"alpha1": 74.88, "alpha2": 65.55, "alpha3": 64.94},
            100: {"alpha1": 69.72, "alpha2": 63.88, "alpha3": 59.66},
            200: {"alpha1": 69.88, "alpha2": 63.78, "alpha3": 58.89},
            300: {"alpha1": 67.34, "alpha2": 62.23, "alpha3": 57.58},
        },
        "challenge": {
            "alpha1": {
                0: (71.99, 69.65, 44.01),
                100: (66.05, 75.03, 50.40),
                200: (65.86, 75.03, 50.57),
                300: (65.59, 74.23, 52.09),
            },
            "train": {
                0: (94.38, 78.53, 48.70),
                100: (91.82, 84.61, 57.62),
                200: (92.46, 84.92, 59.43),
                300: (91.08, 83.54, 63.58),
            },
        },
    },
}


def reference_cells() -> list[dict]:
    """The paper's numbers as cells of the results table: (probe, split, statistic, label) and
    which model they stand beside ("premise": a model that reads its table, compared with
    RoBERTa-large; "hypothesis_only": the hypothesis-only baseline). Only numbers the papers
    print: nothing here is derived from them."""
    from tabprobe.data.datasets import paper_dataset

    splits = paper_dataset().splits
    cells = []

    def add(reference, probe, split, statistic, label, value):
        if value is not None:
            mean = value[0] if isinstance(value, tuple) else value
            cells.append(
                {
                    "reference": reference,
                    "probe": probe,
                    "split": split,
                    "statistic": statistic,
                    "label": label,
                    "paper": float(mean),
                }
            )

    for name, reference in (
        ("RoBERTa-large (premise + hypothesis)", "premise"),
        ("Hypothesis only", "hypothesis_only"),
    ):
        for split, value in TABLE1_ACCURACY[name].items():
            add(reference, "original", split, "accuracy", "all", value)
    for probe, entry in invalid_transitions().items():
        for label, by_split in entry["values"].items():
            for split, value in by_split.items():
                add("premise", probe, split, "invalid_transition_pct", label, value)
    for probe, by_split in PREMISE_CONTROLS.items():
        for split, value in by_split.items():
            add("premise", probe, split, "accuracy", "all", value)
    for (statistic, label), value in EVIDENCE_SELECTION.items():
        for split in splits:  # the paper's are over dev and test together: the same value on each split
            add("premise", "evidence_selection", split, statistic, label, value)
    for table, numbers in (("table4", TABLE4), ("table7", TABLE7)):
        for split, rows in numbers.items():
            for row, reference in (("Prem+Hypo", "premise"), ("Hypo-Only", "hypothesis_only")):
                for column in ("label_preserved", "label_flipped"):
                    add(reference, f"{table}:{column}", split, "accuracy", "all", rows[row][column])
    for cell, by_split in TABLE8.items():
        for split, value in by_split.items():
            add("premise", "table7:label_flipped", split, "paired_correctness_pct", cell, value)
    return cells


def summary_tick(probe: str, statistic: str, split: str) -> float | None:
    """RoBERTa-large's value for a number of the report's summary charts, where the paper gives
    one to set beside it: the mean of its three per-label cells for an invalid-transition share
    (the paper prints no overall share), its original minus its column for a pooled Table 4 or 7
    drop. None elsewhere (the premise controls' paper models were trained without a table, so a
    drop is not comparable)."""
    if statistic == "invalid_transition_pct":
        from tabprobe.probes import REGISTRY, get_probe

        # The one probe's own numbers: the chart asks probe by probe, so no gathering of them all.
        numbers = get_probe(probe).paper_numbers if probe in REGISTRY else None
        if not (numbers and numbers.invalid_transition_pct):
            return None
        values = [numbers.invalid_transition_pct[label].get(split) for label in ("E", "N", "C")]
        return round(sum(values) / 3, 2) if None not in values else None
    table, _, column = probe.partition(":")
    numbers = {"table4": TABLE4, "table7": TABLE7}.get(table, {}).get(split, {}).get("Prem+Hypo")
    if statistic == "accuracy_drop" and numbers and column in numbers:
        return round(numbers["original"][0] - numbers[column][0], 2)
    return None
