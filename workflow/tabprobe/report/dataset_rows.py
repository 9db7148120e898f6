"""Which dataset each score of the results table belongs to (InfoTabS or TabFact), and the run as
the InfoTabS parts of the report see it: InfoTabS rows, probes, splits and models only, so that a
TabFact-only model or a TabFact probe never reaches a table written for three labels."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from tabprobe.data.infotabs.reading import SPLITS as INFOTABS_SPLITS
from tabprobe.probes import get_probe
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring.results import Index

INFOTABS, TABFACT = "infotabs", "tabfact"
# TabFact's unperturbed statements: its counterpart of `original`, which its probes' drops pair with.
TABFACT_ORIGINAL = "tf_original"


def dataset_of_probe(probe: str) -> str:
    """The dataset a probe's scores belong to: the first its module is written for. A pooled
    column of paper Tables 4 and 7 ("table4:label_flipped") pools InfoTabS probes; a name no
    longer registered (a results table of an older run) is read as InfoTabS, as it was then."""
    if ":" in probe:
        return INFOTABS
    if probe == TABFACT_ORIGINAL:  # known by name, registered or not (a results table read on its own)
        return TABFACT
    try:
        return get_probe(probe).datasets[0]
    except KeyError:
        return INFOTABS


def by_dataset(scores: Index) -> dict[str, Index]:
    """The results table cut by dataset, InfoTabS first. The table's own `dataset` column decides
    where it has one; a results table written before that column existed is cut by each probe's
    dataset, which gives the same answer."""
    table = scores.table
    if "dataset" in table.columns:
        column = pl.col("dataset")
    else:
        tabfact_probes = [p for p in table["probe"].unique().to_list() if dataset_of_probe(p) == TABFACT]
        column = pl.when(pl.col("probe").is_in(tabfact_probes)).then(pl.lit(TABFACT)).otherwise(pl.lit(INFOTABS))
    tabfact = table.filter(column == TABFACT)
    if tabfact.height == 0:  # the InfoTabS run as it always was: the same Index, not a copy
        return {INFOTABS: scores, TABFACT: Index(tabfact)}
    return {INFOTABS: Index(table.filter(column != TABFACT)), TABFACT: Index(tabfact)}


def tabfact_only(parts: dict[str, Index]) -> set[str]:
    """The models that answered TabFact's probes and no InfoTabS one (those trained on TabFact, and
    any other whose `datasets` is TabFact's alone)."""
    return set(parts[TABFACT].models()) - set(parts[INFOTABS].models())


def infotabs_run(parts: dict[str, Index], run: RunInfo) -> RunInfo:
    """The run as the InfoTabS parts see it: its InfoTabS probes, splits, coverage and failing
    examples, and every model except those that answered TabFact probes only (a TabFact-trained
    two-label model has no `original` scores, and its rows would be empty or misread there)."""
    only_tabfact = tabfact_only(parts)
    probes = [p for p in run.probes if dataset_of_probe(p) == INFOTABS]
    return replace(
        run,
        splits=[s for s in run.splits if s in INFOTABS_SPLITS],
        probes=probes,
        models={m: info for m, info in run.models.items() if m not in only_tabfact},
        coverage=[c for c in run.coverage if dataset_of_probe(c["probe"]) == INFOTABS],
        examples={key: block for key, block in run.examples.items() if dataset_of_probe(key[0]) == INFOTABS},
    )
