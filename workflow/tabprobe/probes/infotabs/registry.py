"""InfoTabS's probes (its `Dataset.probes`): one registry line per probe of its own, by family
(hypothesis/, table/, evidence/, counterfactual/, numeric/), imported when first asked for; and the
texts of the shared probes it takes (probes/shared/: original, hypothesis_only, swapped_table,
dummy_premise), which keep their names bare for it (its prefix is empty).

No job imports this file (tabprobe.code_inputs): adding a line runs only the new probe's jobs.
"""

PROBES: dict[str, str] = {
    "row_deletion": "tabprobe.probes.infotabs.table.row_deletion:PROBE",
    "row_insertion": "tabprobe.probes.infotabs.table.row_insertion:PROBE",
    "row_update": "tabprobe.probes.infotabs.table.row_update:PROBE",
    "row_permutation": "tabprobe.probes.infotabs.table.row_permutation:PROBE",
    "row_deletion_insertion": "tabprobe.probes.infotabs.table.row_deletion_insertion:PROBE",
    "entity_flip": "tabprobe.probes.infotabs.hypothesis.entity_flip:PROBE",
    "entity_preserve": "tabprobe.probes.infotabs.hypothesis.entity_preserve:PROBE",
    "number_preserve": "tabprobe.probes.infotabs.hypothesis.number_preserve:PROBE",
    "number_flip": "tabprobe.probes.infotabs.hypothesis.number_flip:PROBE",
    "temporal_preserve": "tabprobe.probes.infotabs.hypothesis.temporal_preserve:PROBE",
    "temporal_flip": "tabprobe.probes.infotabs.hypothesis.temporal_flip:PROBE",
    "duration_preserve": "tabprobe.probes.infotabs.hypothesis.duration_preserve:PROBE",
    "duration_flip": "tabprobe.probes.infotabs.hypothesis.duration_flip:PROBE",
    "negation_flip": "tabprobe.probes.infotabs.hypothesis.negation_flip:PROBE",
    "modifier_preserve": "tabprobe.probes.infotabs.hypothesis.modifier_preserve:PROBE",
    "quantifier_flip": "tabprobe.probes.infotabs.hypothesis.quantifier_flip:PROBE",
    "quantifier_preserve": "tabprobe.probes.infotabs.hypothesis.quantifier_preserve:PROBE",
    "num_words": "tabprobe.probes.infotabs.numeric.num_words:PROBE",
    "num_decimal": "tabprobe.probes.infotabs.numeric.num_decimal:PROBE",
    "num_verbosity": "tabprobe.probes.infotabs.numeric.num_verbosity:PROBE",
    "num_distractor_rows": "tabprobe.probes.infotabs.numeric.num_distractor_rows:PROBE",
    "num_comparative": "tabprobe.probes.infotabs.numeric.num_comparative:PROBE",
    "num_noise": "tabprobe.probes.infotabs.numeric.num_noise:PROBE",
    "num_distribution": "tabprobe.probes.infotabs.numeric.num_distribution:PROBE",
    "num_logic": "tabprobe.probes.infotabs.numeric.num_logic:PROBE",
    "relevant_row_deletion": "tabprobe.probes.infotabs.evidence.relevant_row_deletion:PROBE",
    "irrelevant_row_deletion": "tabprobe.probes.infotabs.evidence.irrelevant_row_deletion:PROBE",
    "evidence_selection": "tabprobe.probes.infotabs.evidence.evidence_selection:PROBE",
    "cf_row_swap": "tabprobe.probes.infotabs.counterfactual.cf_row_swap:PROBE",
    "cf_title_swap": "tabprobe.probes.infotabs.counterfactual.cf_title_swap:PROBE",
    "cf_human": "tabprobe.probes.infotabs.counterfactual.cf_human:PROBE",
}

# The shared probes as InfoTabS's report and run record name them.
TEXTS: dict[str, dict[str, str]] = {
    "hypothesis_only": {"paper_reference": "InfoTabS paper Table 3"},
    "swapped_table": {"paper_reference": "InfoTabS paper Table 4"},
    "dummy_premise": {"paper_reference": "InfoTabS paper Table 4"},
}
