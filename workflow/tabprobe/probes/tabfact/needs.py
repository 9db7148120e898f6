"""TabFact's own need (probes/needs.py): the human-written programs of a split's statements and the
evidence each read on the original table (its ingest's programs file; only `bootstrap` has any),
which the program probes re-execute on the edited table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabprobe.data.datasets import Dataset
from tabprobe.data.tabfact import contracts
from tabprobe.data.tabfact.reading import BOOTSTRAP
from tabprobe.io import read_parquet
from tabprobe.probes.needs import Loaded, Need


@dataclass(frozen=True)
class ProgramFacts:
    """A statement's program (bootstrap.json, `tabprobe.data.tabfact.programs`) and what it read
    when executed on the ORIGINAL table: indices of its records (follow them through an edit with the
    edited table's `source_records`) and the names of the columns it named."""

    program: str
    records_read: tuple[int, ...] = ()
    columns_read: tuple[str, ...] = ()


def read_programs(path: str) -> dict[str, ProgramFacts]:
    """uid -> ProgramFacts, from a split's programs file (contracts.PROGRAMS: only programs that give
    their statement's label on the original table are there, data/tabfact/ingest.py)."""
    return {
        r["uid"]: ProgramFacts(r["program"], tuple(r["records_read"]), tuple(r["columns_read"]))
        for r in read_parquet(path, contracts.PROGRAMS).to_pylist()
    }


def _files(dataset: Dataset, split: str, config: Mapping[str, Any], root: str) -> list[str]:
    return [dataset.ingest_outputs(split, root)["programs"]]


def _load(files: Sequence[str], settings, split: str, examples, tables) -> Loaded:
    return Loaded(read_programs(files[0]), {})


# uid -> the statement's program and what it read (TabFact's bootstrap split).
PROGRAMS = Need(name="programs", title="the human-written programs", files=_files, load=_load, splits=(BOOTSTRAP,))
