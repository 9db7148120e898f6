"""TabFact as the stages see it (the dataset seam, data/datasets.py): relational tables (a caption,
a header, records), statements labelled ENTAILED / REFUTED, with no neutral class."""

from tabprobe import schemas
from tabprobe.data.datasets import Dataset
from tabprobe.data.tabfact.reading import SPLITS
from tabprobe.data.tabfact.render import RENDERINGS
from tabprobe.data.tabfact.table import RelationalTable

# ../shared/tabfact/SOURCE.md: the pinned upstream commit.
TABFACT_REPOSITORY = "github.com/wenhuchen/Table-Fact-Checking"
TABFACT_COMMIT = "2ab782ba42b5808076ac91fec846473aa5315a79"

DATASET = Dataset(
    name="tabfact",
    title="TabFact",
    labels=("E", "C"),
    label_names={"E": "ENTAILED", "C": "REFUTED"},
    splits=SPLITS,
    table_type=RelationalTable,
    table_struct=schemas.RELATIONAL_TABLE,
    renderings=RENDERINGS,
    dev_split="val",
    source=(
        f"TabFact (Chen et al., ICLR 2020), {TABFACT_REPOSITORY} at {TABFACT_COMMIT[:12]}, MIT; "
        "train statements reconstructed from github.com/ousuixin/SASP, not the upstream file"
    ),
)
