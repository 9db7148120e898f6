"""InfoTabS as the stages see it (the dataset seam, data/datasets.py): Wikipedia infoboxes as a
title and key -> values rows, hypotheses labelled ENTAIL / NEUTRAL / CONTRADICT."""

from tabprobe import LABEL_NAMES, LABELS, schemas
from tabprobe.data.datasets import Dataset
from tabprobe.data.infotabs.download import INFOTABS_COMMIT
from tabprobe.data.infotabs.reading import SPLITS
from tabprobe.data.infotabs.render import RENDERINGS
from tabprobe.data.infotabs.table import Table

DATASET = Dataset(
    name="infotabs",
    title="InfoTabS",
    labels=LABELS,
    label_names=LABEL_NAMES,
    splits=SPLITS,
    table_type=Table,
    table_struct=schemas.TABLE,
    renderings=RENDERINGS,
    source=f"InfoTabS (Gupta et al., 2020), github.com/infotabs/infotabs at {INFOTABS_COMMIT[:12]}, Apache-2.0",
)
