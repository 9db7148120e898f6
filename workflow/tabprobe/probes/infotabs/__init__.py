"""InfoTabS's probes (the paper's, on infoboxes), by family: hypothesis/ (edits of the hypothesis
read off its parse, paper section 4, Table 4), table/ (edits of rows judged by transition rules,
section 5.1), evidence/ (the relevant rows, section 5.2-5.3), counterfactual/ (section 6, Tables
7-8) and numeric/ (the numeric perturbations of numerical-qa-robustness and diversify-your-datasets);
helpers beside the probes that use them (a helper of several families here: table_edits, titles,
number_edits, evidence_edits); its own need (needs.py) and its registry (registry.py)."""
