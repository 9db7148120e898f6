"""Reference numbers from the papers, shown beside this run's (RoBERTa-large, Table as a Paragraph).

Source: papers/evidence-probes-tabular-nli.txt. Values are percentages.
"""

# Table 1: accuracy on the unperturbed splits.
TABLE1_ACCURACY = {
    "RoBERTa-large (premise + hypothesis)": {"dev": 75.55, "alpha1": 74.88, "alpha2": 65.55, "alpha3": 64.94},
    "Hypothesis only": {"dev": 60.51, "alpha1": 60.48, "alpha2": 48.26, "alpha3": 48.89},
    "Human": {"dev": 79.78, "alpha1": 84.04, "alpha2": 83.88, "alpha3": 79.33},
}

# Invalid-transition % by label originally predicted, per probe (Table 5 for row deletion).
INVALID_TRANSITIONS = {
    "row_deletion": {
        "table": "Table 5",
        "values": {
            "E": {"alpha1": 5.76, "alpha2": 7.26, "alpha3": 5.01},
            "N": {"alpha1": 4.43, "alpha2": 3.91, "alpha3": 5.24},
            "C": {"alpha1": 3.23, "alpha2": 3.70, "alpha3": 3.01},
        },
    },
}
