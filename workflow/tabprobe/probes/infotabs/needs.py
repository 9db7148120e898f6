"""InfoTabS's own need (probes/needs.py): the paper's hand-made label-flipped counterfactual
tables of a split (data/infotabs/counterfactuals.py), which cf_human reads as they are."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tabprobe.data.datasets import Dataset
from tabprobe.data.infotabs import counterfactuals
from tabprobe.probes.needs import Loaded, Need

log = logging.getLogger(__name__)


def _files(dataset: Dataset, split: str, config: Mapping[str, Any], root: str) -> list[str]:
    """The split's files (its TSV first): an edited line or table re-generates its readers.
    Without a local copy, the downloaded release (rule download_counterfactuals)."""
    root = config.get("counterfactuals_dir")
    if not root:
        return [counterfactuals.DOWNLOADED]
    return [str(p) for p in counterfactuals.split_files(root, split)]


def _settings(config: Mapping[str, Any]) -> dict:
    """Whether the copy is checked against the release: turning it off re-runs its readers only."""
    return {"verify": config.get("counterfactuals_verify", True)}


def _load(files: Sequence[str], settings: Mapping[str, Any], split: str, examples, tables) -> Loaded:
    root = counterfactuals.root_of(files[0])
    if settings.get("verify", True):
        counterfactuals.verify(root)
    categories = {table_id: table.category for table_id, table in tables.items()}
    pairs = counterfactuals.read_split(root, split, categories)
    log.info("read %d hand-made counterfactuals of %s from %s", len(pairs), split, root)
    return Loaded(counterfactuals.by_example(pairs), {"made_by": "human", "source": str(root)})


# (table id, hypothesis) -> the paper's hand-made counterfactuals of that example.
HUMAN_COUNTERFACTUALS = Need(
    name="human_counterfactuals",
    title="the hand-made counterfactual pairs",
    files=_files,
    load=_load,
    settings=_settings,
    made_by=("human", "human-made: the paper's hand-made counterfactual tables (release), read as they are"),
    fixed_set=True,
)
