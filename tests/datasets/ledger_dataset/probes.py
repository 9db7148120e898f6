"""Ledger's own probes (its `Dataset.probes`): one line each. The shared probes its infobox tables
take (ledger_original, ledger_hypothesis_only, ledger_dummy_premise, ledger_swapped_table) are
registered by tabprobe under its prefix, with the texts below over their defaults."""

PROBES = {
    "ledger_reverse_rows": "ledger_dataset.reverse_rows:PROBE",
}

TEXTS = {
    "original": {"description": "Ledger: the statements and their ledgers, unchanged."},
}
