"""The dataset seam (tabprobe.data.datasets): every registered dataset declares what the stages
need, and its declarations hold together; the probes say which datasets they are written for."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from tabprobe import LABEL_NAMES, LABELS, schemas
from tabprobe.data.datasets import REGISTRY, Dataset, get_dataset
from tabprobe.probes import REGISTRY as PROBES
from tabprobe.probes import get_probe, probes_for


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_dataset_declares_what_the_stages_need(name):
    dataset = get_dataset(name)
    assert isinstance(dataset, Dataset) and dataset.name == name and dataset.title and dataset.source
    assert dataset.labels and set(dataset.labels) <= set(LABELS)  # a subset of E, N, C, in their order
    assert list(dataset.labels) == [lab for lab in LABELS if lab in dataset.labels]
    assert set(dataset.label_names) == set(dataset.labels)
    assert dataset.splits and len(set(dataset.splits)) == len(dataset.splits)
    assert dataclasses.is_dataclass(dataset.table_type) and dataset.table_type.__dataclass_params__.frozen
    assert isinstance(dataset.table_struct, pa.StructType)
    assert {"hypothesis_only"} <= set(dataset.renderings)
    assert probes_for(name), f"no probe is written for {name}"


def test_a_dataset_table_round_trips_through_its_parquet_struct_and_renders():
    """InfoTabS: a table goes to Arrow and back unchanged, in the struct its files declare, and
    every rendering gives text (no premise for hypothesis_only)."""
    dataset = get_dataset("infotabs")
    from tabprobe.data.infotabs.table import Row

    table = dataset.table_type("T1", "Ada Quill", (Row("Born", ("10 December 1815",)), Row("Known for", ("poems",))))
    column = pa.array([table.to_arrow()], type=dataset.table_struct)
    assert dataset.table_type.from_arrow(column.to_pylist()[0]) == table
    assert dataset.table_struct == schemas.TABLE
    texts = {how: render(table) for how, render in dataset.renderings.items()}
    assert texts["hypothesis_only"] == "" and all(texts[how] for how in texts if how != "hypothesis_only")
    assert "Ada Quill" in texts["para"] and "10 December 1815" in texts["para"]
    assert dataset.labels == LABELS and dict(dataset.label_names) == LABEL_NAMES


def test_an_unknown_dataset_is_refused_with_the_closest_name():
    with pytest.raises(KeyError, match="Did you mean 'infotabs'"):
        get_dataset("infotab")


def test_every_probe_names_registered_datasets_and_probes_for_follows_them():
    for name in PROBES:
        datasets = get_probe(name).datasets
        assert datasets and set(datasets) <= set(REGISTRY), name
    assert probes_for("infotabs") == [n for n in PROBES if "infotabs" in get_probe(n).datasets]
    assert probes_for("no_such_dataset") == []
