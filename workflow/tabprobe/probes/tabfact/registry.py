"""TabFact's probes (its `Dataset.probes`): one registry line per probe of its own, by family
(record/: edits of records and columns judged by transitions; program/: edits whose expected label
the statement's human-written program gives; statement/: edits of the statement), imported when
first asked for; and the texts of the shared probes it takes (probes/shared/), registered for it
as tf_original, tf_hypothesis_only and tf_swapped_table (its prefix: "tf_").

No job imports this file (tabprobe.code_inputs): adding a line runs only the new probe's jobs.
"""

# In the order TabFact's part of the report lists them (its sections, verdicts and scorecard read
# each family in registry order).
PROBES: dict[str, str] = {
    "column_permutation": "tabprobe.probes.tabfact.record.column_permutation:PROBE",
    "record_permutation": "tabprobe.probes.tabfact.record.record_permutation:PROBE",
    "record_deletion": "tabprobe.probes.tabfact.record.record_deletion:PROBE",
    "record_insertion": "tabprobe.probes.tabfact.record.record_insertion:PROBE",
    "relevant_record_deletion": "tabprobe.probes.tabfact.program.relevant_record_deletion:PROBE",
    "irrelevant_record_deletion": "tabprobe.probes.tabfact.program.irrelevant_record_deletion:PROBE",
    "program_cell_update": "tabprobe.probes.tabfact.program.program_cell_update:PROBE",
    "program_record_deletion": "tabprobe.probes.tabfact.program.program_record_deletion:PROBE",
    "tf_negation": "tabprobe.probes.tabfact.statement.tf_negation:PROBE",
    "tf_number_flip": "tabprobe.probes.tabfact.statement.tf_number_flip:PROBE",
    "tf_entity_flip": "tabprobe.probes.tabfact.statement.tf_entity_flip:PROBE",
    "tf_entity_rename": "tabprobe.probes.tabfact.statement.tf_entity_rename:PROBE",
}

# The shared probes as TabFact's report and run record name them.
TEXTS: dict[str, dict[str, str]] = {
    "original": {
        "description": "TabFact: the gold statements and tables, unchanged.",
        "paper_reference": "issue 35 (TabFact)",
    },
    "hypothesis_only": {
        "description": "TabFact: no premise, the statement alone (scored against the gold label).",
        "paper_reference": "InfoTabS paper Table 3, on TabFact",
    },
    "swapped_table": {
        "description": "TabFact: the premise of another table of the split with another header (scored against the gold label).",
        "paper_reference": "InfoTabS paper Table 4, on TabFact",
    },
}
