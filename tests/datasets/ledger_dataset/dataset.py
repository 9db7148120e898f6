"""The Ledger dataset as tabprobe's stages see it (tabprobe.data.datasets): infobox tables, two
labels, three splits, its own check and ingest, its own probes and the shared ones that fit."""

from tabprobe.data.datasets import Dataset, Ingest, ReportPart
from tabprobe.data.infobox import INFOBOX

DATASET = Dataset(
    name="ledger",
    title="Ledger",
    labels=("E", "C"),
    label_names={"E": "TRUE", "C": "FALSE"},
    splits=("train", "dev", "test"),
    table_type=INFOBOX,
    source="Ledger (written by tests/test_own_dataset.py), no license needed",
    ingest=Ingest(
        check="ledger_dataset.ingest:check_ledger",
        ingest="ledger_dataset.ingest:ingest_ledger",
        digest="ledger_dataset.ingest:digest",
    ),
    baseline_probe="ledger_original",
    report=ReportPart(showcase_order=("test", "dev", "train"), title="Ledger: a dataset of your own"),
    # Its settings are its block of config: datasets.ledger.{dir, splits, full_splits}.
    default_splits=("test",),
    probes="ledger_dataset.probes",
    probe_prefix="ledger_",
    provenance="ledger_dataset.ingest:provenance",
    made_by={
        "original": "Ledger as written by the test (statements and labels)",
        "machine": "machine-made: tabprobe's edits of Ledger examples",
    },
)
