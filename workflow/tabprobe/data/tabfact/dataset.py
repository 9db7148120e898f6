"""TabFact as the stages see it (the dataset seam, data/datasets.py): relational tables (a caption,
a header, records), statements labelled ENTAILED / REFUTED, with no neutral class."""

from tabprobe.data.datasets import ConfigKeys, Dataset, Ingest
from tabprobe.data.relational import RELATIONAL
from tabprobe.data.tabfact.reading import SPLITS
from tabprobe.data.tabfact.report_part import REPORT

# ../shared/tabfact/SOURCE.md: the pinned upstream commit.
TABFACT_REPOSITORY = "github.com/wenhuchen/Table-Fact-Checking"
TABFACT_COMMIT = "2ab782ba42b5808076ac91fec846473aa5315a79"
SOURCE = (
    f"TabFact (Chen et al., ICLR 2020), {TABFACT_REPOSITORY} at {TABFACT_COMMIT[:12]}, MIT; "
    "train statements reconstructed from github.com/ousuixin/SASP, not the upstream file"
)


def provenance(config) -> dict:
    """The TabFact copy, and which of its parts are upstream's and which reconstructed: its train
    statements are, and a model trained on them says so."""
    trained = [m for m, c in config["models"].items() if (c.get("train") or {}).get("dataset") == "tabfact"]
    return {
        "source": config.get("tabfact_dir"),
        "dataset": SOURCE,
        "val_and_test": "upstream: byte-identical to the pinned commit's statements",
        "bootstrap": "human-written programs (bootstrap.json), kept where tabprobe's executor gives their label",
        "train": "reconstructed (../shared/tabfact/README.md), not upstream's file",
        "models_trained_on_reconstructed_train": trained,
    }


DATASET = Dataset(
    name="tabfact",
    title="TabFact",
    labels=("E", "C"),
    label_names={"E": "ENTAILED", "C": "REFUTED"},
    splits=SPLITS,
    table_type=RELATIONAL,
    source=SOURCE,
    ingest=Ingest(
        check="tabprobe.data.tabfact.ingest:check_tabfact",
        ingest="tabprobe.data.tabfact.ingest:ingest_tabfact",
        digest="tabprobe.data.tabfact.reading:digest",
        outputs={"programs": "{split}.programs.parquet"},
    ),
    baseline_probe="tf_original",
    report=REPORT,
    config_keys=ConfigKeys(dir="tabfact_dir", splits="tabfact_splits", full_splits="tabfact_full_splits"),
    default_splits=("simple_test", "complex_test"),
    probes="tabprobe.probes.tabfact.registry",
    probe_prefix="tf_",
    needs={"programs": "tabprobe.probes.tabfact.needs:PROGRAMS"},
    config_check="tabprobe.data.tabfact.config_check:problems",
    provenance="tabprobe.data.tabfact.dataset:provenance",
    made_by={
        "original": (
            "TabFact as released (val/test statements byte-identical to upstream; `bootstrap`: the statements "
            "of the human-written programs, kept where the project's executor gives their label)"
        ),
        "machine": (
            "machine-made: tabprobe's edits of TabFact examples (the program probes' expected labels: the "
            "human-written program executed on the edited table)"
        ),
    },
    dev_split="val",
)
