"""The dataset seam (tabprobe.data.datasets): every registered dataset declares what the stages
need, and its declarations hold together; table types are shared and dispatched by declaration;
a user's dataset, a module anywhere, is registered from config and handed to the jobs."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pyarrow as pa
import pytest

from tabprobe import LABEL_NAMES, LABELS
from tabprobe.config.settings import dataset_splits, model_datasets
from tabprobe.data import datasets, tables
from tabprobe.data.datasets import Dataset, get_dataset, names, paper_dataset
from tabprobe.data.infobox import INFOBOX
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.relational import RELATIONAL
from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes import REGISTRY as PROBES
from tabprobe.probes import get_probe, probes_for


@pytest.mark.parametrize("name", ["infotabs", "tabfact"])
def test_every_built_in_dataset_declares_what_the_stages_need(name):
    assert name in names()
    dataset = get_dataset(name)
    assert isinstance(dataset, Dataset) and dataset.name == name and dataset.title and dataset.source
    assert dataset.labels and set(dataset.labels) <= set(LABELS)  # a subset of E, N, C, in their order
    assert list(dataset.labels) == [lab for lab in LABELS if lab in dataset.labels]
    assert set(dataset.label_names) == set(dataset.labels)
    assert dataset.splits and len(set(dataset.splits)) == len(dataset.splits)
    assert {dataset.train_split, dataset.dev_split} <= set(dataset.splits)
    assert dataset.table_type in tables.TABLE_TYPES.values()
    assert dataclasses.is_dataclass(dataset.table_type.cls) and dataset.table_type.cls.__dataclass_params__.frozen
    assert isinstance(dataset.table_struct, pa.StructType)
    assert {"hypothesis_only"} <= set(dataset.renderings)
    assert set(dataset.report.showcase_order) <= set(dataset.splits)
    assert dataset.baseline_probe in probes_for(name)
    assert {"original", "machine"} <= set(dataset.made_by)
    for target in (dataset.ingest.check, dataset.ingest.ingest, dataset.ingest.digest):
        assert callable(datasets.resolve(target)), target
    assert probes_for(name), f"no probe is written for {name}"
    if dataset.report.published_accuracy:  # the report reads it only when it is built: checked here
        published = datasets.resolve(dataset.report.published_accuracy)
        assert isinstance(published, datasets.PublishedAccuracy)
        assert {published.hypothesis_only_row, published.premise_row} <= set(published.rows)
        assert all(set(values) <= set(dataset.splits) for values in published.rows.values())


def test_exactly_one_dataset_is_the_papers_and_its_files_lie_where_runs_before_the_seam_put_them():
    assert paper_dataset().name == "infotabs"
    assert get_dataset("infotabs").examples("alpha1") == "results/data/alpha1.parquet"
    assert get_dataset("tabfact").tables("val", "runs/x") == "runs/x/data/tabfact/val.tables.parquet"
    assert get_dataset("tabfact").ingest_outputs("bootstrap") == {
        "examples": "results/data/tabfact/bootstrap.parquet",
        "tables": "results/data/tabfact/bootstrap.tables.parquet",
        "summary": "results/data/tabfact/bootstrap.summary.json",
        "programs": "results/data/tabfact/bootstrap.programs.parquet",
    }
    # The paper dataset's run-record keys stay bare; another's carry its name.
    assert get_dataset("infotabs").made_by_key("original") == "original"
    assert get_dataset("tabfact").made_by_key("machine") == "tabfact_machine"


def test_a_dataset_reads_its_own_config_keys():
    """Each dataset's splits come from the keys it declares, with its defaults."""
    config = {"splits": ["alpha2"], "full_splits": ["alpha1", "alpha3"], "tabfact_splits": None, "full": False}
    assert dataset_splits(config, "infotabs") == ["alpha2"]
    assert dataset_splits(config, "tabfact") == ["simple_test", "complex_test"]
    assert dataset_splits({**config, "full": True}, "infotabs") == ["alpha1", "alpha3"]
    assert dataset_splits(
        {**config, "tabfact_splits": ["val"], "tabfact_full_splits": ["test"], "full": True}, "tabfact"
    ) == ["test"]
    # A model that names no dataset answers the paper's; one trained on TabFact answers TabFact.
    models = {"a": {"checkpoint": "x"}, "b": {"train": {"dataset": "tabfact", "base": "y"}}}
    assert model_datasets({"models": models}, "a") == ["infotabs"]
    assert model_datasets({"models": models}, "b") == ["tabfact"]


def test_a_table_round_trips_through_its_types_parquet_struct_and_renders():
    """An infobox goes to Arrow and back unchanged, in the struct its type declares, and every
    rendering gives text (no premise for hypothesis_only)."""
    dataset = get_dataset("infotabs")
    table = dataset.table_type.cls(
        "T1", "Ada Quill", (Row("Born", ("10 December 1815",)), Row("Known for", ("poems",)))
    )
    column = pa.array([table.to_arrow()], type=dataset.table_struct)
    assert dataset.table_type.cls.from_arrow(column.to_pylist()[0]) == table
    assert dataset.table_struct == infobox.TABLE
    texts = {how: render(table) for how, render in dataset.renderings.items()}
    assert texts["hypothesis_only"] == "" and all(texts[how] for how in texts if how != "hypothesis_only")
    assert "Ada Quill" in texts["para"] and "10 December 1815" in texts["para"]
    assert dataset.labels == LABELS and dict(dataset.label_names) == LABEL_NAMES


def test_tables_of_either_type_are_read_and_rendered_by_their_declared_type():
    box = Table("T1", "Ada", (Row("born", ("1815",)),), "person")
    grid = RelationalTable("t.csv", "races", ("year", "winner"), (("1990", "ada"),))
    for table, kind in ((box, INFOBOX), (grid, RELATIONAL)):
        assert tables.of_table(table) is kind
        assert tables.table_from_arrow(table.to_arrow()) == table
        loaded = tables.load_tables(pa.Table.from_pylist([table.to_arrow()], schema=kind.tables))
        assert loaded == {table.table_id: table}
        assert tables.render(table, "para") == kind.render(table, "para")
    assert tables.render(grid, "para") == "the table is about races . row 1 is : year is 1990 ; winner is ada ."
    with pytest.raises(ValueError, match="no known table type"):
        tables.table_from_arrow({"table_id": "x", "cells": []})


def test_an_unknown_dataset_is_refused_with_the_closest_name():
    with pytest.raises(KeyError, match="Did you mean 'infotabs'"):
        get_dataset("infotab")


def test_every_probe_names_registered_datasets_and_probes_for_follows_them():
    for name in PROBES:
        declared = get_probe(name).datasets
        assert declared and set(declared) <= set(names()), name
    assert probes_for("infotabs") == [n for n in PROBES if "infotabs" in get_probe(n).datasets]
    assert probes_for("no_such_dataset") == []


OWN_DATASET = """
from tabprobe.data.datasets import Dataset, Ingest, ReportPart
from tabprobe.data.infobox import INFOBOX

DATASET = Dataset(
    name="mine",
    title="Mine",
    labels=("E", "C"),
    label_names={"E": "YES", "C": "NO"},
    splits=("train", "dev", "test"),
    table_type=INFOBOX,
    source="written by a test",
    ingest=Ingest(check="mine_pkg.jobs:check", ingest="mine_pkg.jobs:ingest", digest="mine_pkg.jobs:digest"),
    baseline_probe="mine_original",
    report=ReportPart(showcase_order=("test", "dev")),
    probe_prefix="mine_",
)
"""


def test_a_users_dataset_is_registered_from_config_and_handed_to_the_jobs(tmp_path, monkeypatch):
    """A module outside the repository, named in config: this process finds it, and so does a
    process it starts (the environment carries the entry and the package's folder)."""
    package = tmp_path / "mine_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "dataset.py").write_text(OWN_DATASET)
    monkeypatch.setattr(datasets, "_USER", {})
    # Set, then removed: the test's end then removes what use_config writes there too.
    monkeypatch.setenv(datasets.ENVIRONMENT, "{}")
    monkeypatch.delenv(datasets.ENVIRONMENT)
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    monkeypatch.setattr(sys, "path", list(sys.path))
    get_dataset.cache_clear()
    try:
        datasets.use_config({"datasets": {"mine": {"package": "mine_pkg.dataset", "path": str(tmp_path)}}})
        assert names()[-1] == "mine" and get_dataset("mine").labels == ("E", "C")
        assert get_dataset("mine").examples("test") == "results/data/mine/test.parquet"
        assert json.loads(os.environ[datasets.ENVIRONMENT])["mine"]["path"] == str(tmp_path)
        child = subprocess.run(
            [sys.executable, "-c", "from tabprobe.data.datasets import get_dataset; print(get_dataset('mine').title)"],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path.parent,
        )
        assert child.stdout.strip() == "Mine"
        with pytest.raises(ValueError, match="built-in dataset"):
            datasets.register("tabfact", "mine_pkg.dataset")
    finally:
        get_dataset.cache_clear()


def test_a_users_dataset_that_does_not_import_says_so(monkeypatch):
    monkeypatch.setattr(datasets, "_USER", {})
    # Set, then removed: the test's end then removes what use_config writes there too.
    monkeypatch.setenv(datasets.ENVIRONMENT, "{}")
    monkeypatch.delenv(datasets.ENVIRONMENT)
    get_dataset.cache_clear()
    try:
        datasets.register("other", "no_such_package_here.dataset")
        with pytest.raises(ValueError, match=r"dataset other: no_such_package_here.dataset:DATASET does not import"):
            get_dataset("other")
    finally:
        get_dataset.cache_clear()
