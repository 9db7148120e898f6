"""Shared pytest fixtures. Keep this small and generic; test-specific helpers live in the test files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# On the project machines the official data sits beside the repository (read only, never copied into it).
SHARED_INFOTABS = Path(__file__).resolve().parents[2] / "shared" / "infotabs"
SHARED_TABFACT = SHARED_INFOTABS.parent / "tabfact"
SHARED_COUNTERFACTUALS = SHARED_INFOTABS.with_name("infotabs-counterfactuals")


@pytest.fixture
def mini_infotabs() -> Path:
    """The hand-written, clean InfoTabS-format fixture (read only: copy it with `bad_copy` to change it)."""
    return FIXTURES / "mini_infotabs"


@pytest.fixture
def bad_copy(tmp_path, mini_infotabs):
    """A function that copies the mini fixture under tmp_path and returns the copy, for a test to corrupt."""

    def make(name: str = "infotabs") -> Path:
        dest = tmp_path / name
        shutil.copytree(mini_infotabs, dest)
        return dest

    return make


@pytest.fixture(scope="session")
def nlp():
    """The spaCy pipeline the workflow parses hypotheses with (rule parse_hypotheses)."""
    from tabprobe.data import parsing

    return parsing.load_pipeline("auto")


@pytest.fixture(scope="session")
def shared_infotabs() -> Path:
    """The real InfoTabS copy at ../shared/infotabs; tests that need it skip where it is absent."""
    if not (SHARED_INFOTABS / "data" / "maindata").is_dir():
        pytest.skip(f"real InfoTabS data not found at {SHARED_INFOTABS} (expected data/maindata/ there)")
    return SHARED_INFOTABS


@pytest.fixture(scope="session")
def shared_tabfact() -> Path:
    """The real TabFact copy at ../shared/tabfact; tests that need it skip where it is absent."""
    if not (SHARED_TABFACT / "data" / "all_csv").is_dir():
        pytest.skip(f"real TabFact data not found at {SHARED_TABFACT} (expected data/all_csv/ there)")
    return SHARED_TABFACT


@pytest.fixture(scope="session")
def alpha1(shared_infotabs) -> dict:
    """alpha1 as the workflow reads it: ingested, every hypothesis parsed, relevance aligned. For
    tests/test_probes_on_infotabs.py and the probes' own files (tests/probes/): made once a session."""
    from tabprobe.data import parsing
    from tabprobe.data.infotabs import ingest
    from tabprobe.data.infotabs import reading as infotabs
    from tabprobe.data.infotabs.relevance import relevance_table
    from tabprobe.schemas import relevant_keys

    ingested = ingest.ingest_split(shared_infotabs, "alpha1")
    tables = infotabs.load_tables(ingested.tables)
    nlp = parsing.load_pipeline("auto")
    examples = ingested.examples
    parsed = parsing.parse(
        nlp, examples["hypothesis"].to_pylist(), examples["uid"].to_pylist(), examples["table_id"].to_pylist()
    )
    docs = {doc.user_data["uid"]: doc for doc in parsed.get_docs(nlp.vocab)}
    found, _ = relevance_table(examples, tables, "aligner")
    return {
        "examples": examples,
        "tables": tables,
        "docs": docs,
        "relevance": relevant_keys(found),
        "summary": ingested.summary,
        "by_uid": {r["uid"]: r for r in examples.to_pylist()},
    }


@pytest.fixture(scope="session")
def alpha1_outputs(alpha1) -> dict:
    """Every registered probe on all of alpha1: (probe examples as records, coverage)."""
    from tabprobe.data.infotabs import counterfactuals as human_counterfactuals
    from tabprobe.probes import REGISTRY, get_probe
    from tabprobe.probes.generation import generate

    out = {}
    for name in sorted(REGISTRY):
        probe = get_probe(name)
        if "infotabs" not in probe.datasets:
            continue  # written for another dataset's tables (TabFact's probes have tests of their own)
        made = None
        if "human_counterfactuals" in probe.needs:
            if not SHARED_COUNTERFACTUALS.is_dir():
                continue  # the paper's hand-made set is not beside the checkout: test_human_counterfactuals says so
            categories = {table_id: table.category for table_id, table in alpha1["tables"].items()}
            made = human_counterfactuals.by_example(
                human_counterfactuals.read_split(SHARED_COUNTERFACTUALS, "alpha1", categories)
            )
        table, coverage = generate(
            name,
            alpha1["examples"],
            alpha1["tables"],
            seed=2022,
            needs={
                "parse": alpha1["docs"] if "parse" in probe.needs else None,
                "relevance": alpha1["relevance"] if "relevance" in probe.needs else None,
                "human_counterfactuals": made,
            },
        )
        out[name] = (table.to_pylist(), coverage)
    return out
