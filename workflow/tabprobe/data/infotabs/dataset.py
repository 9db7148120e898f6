"""InfoTabS as the stages see it (the dataset seam, data/datasets.py): Wikipedia infoboxes as a
title and key -> values rows, hypotheses labelled ENTAIL / NEUTRAL / CONTRADICT; the dataset of
the paper whose protocol tabprobe implements."""

from tabprobe import LABEL_NAMES, LABELS
from tabprobe.data.datasets import ConfigKeys, Dataset, Ingest, ReportPart
from tabprobe.data.infobox import INFOBOX
from tabprobe.data.infotabs.download import INFOTABS_COMMIT
from tabprobe.data.infotabs.reading import SPLITS
from tabprobe.data.infotabs.report_texts import REPORT_TEXTS

DATASET = Dataset(
    name="infotabs",
    title="InfoTabS",
    labels=LABELS,
    label_names=LABEL_NAMES,
    splits=SPLITS,
    table_type=INFOBOX,
    source=f"InfoTabS (Gupta et al., 2020), github.com/infotabs/infotabs at {INFOTABS_COMMIT[:12]}, Apache-2.0",
    ingest=Ingest(
        check="tabprobe.data.infotabs.ingest:check_infotabs",
        ingest="tabprobe.data.infotabs.ingest:ingest_infotabs",
        digest="tabprobe.data.infotabs.download:copy_digest",
        root="tabprobe.data.infotabs.download:infotabs_root",
        downloads="tabprobe.data.infotabs.download:downloads",
        check_settings={"verify": "infotabs_verify"},
        ingest_arguments={"verify": False},  # its check verified this very content
    ),
    baseline_probe="original",
    # The paper's main test set first.
    report=ReportPart(
        showcase_order=("alpha1", "alpha2", "alpha3", "dev", "train"),
        chance="uniform",  # its splits hold the three labels in equal shares
        texts=REPORT_TEXTS,
        published_accuracy="tabprobe.scoring.paper:TABLE1",
    ),
    # Its splits are the report's: `splits` (`full_splits` under `full: true`).
    config_keys=ConfigKeys(dir="infotabs_dir", splits="splits", full_splits="full_splits"),
    # Its files sit in results/data/ itself, where runs before the second dataset put them (their cache holds).
    folder="",
    probes="tabprobe.probes.infotabs.registry",
    probe_prefix="",
    needs={"human_counterfactuals": "tabprobe.probes.infotabs.needs:HUMAN_COUNTERFACTUALS"},
    config_check="tabprobe.data.infotabs.config_check:problems",
    example_lines="tabprobe.data.infotabs.config_check:example_lines",
    provenance="tabprobe.data.infotabs.download:provenance",
    made_by={
        "original": "InfoTabS as released (crowd-written hypotheses and labels)",
        "machine": "machine-made: tabprobe's edits of InfoTabS examples",
    },
    paper=True,
)
