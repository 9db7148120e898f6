"""The TabFact statement probes on the first 300 val statements of the real data (skipped where
the data is absent): how many each applies to, that no example breaks its probe's promises, and
that a renamed entity's new name is in no cell of the original table."""

import json
from collections import Counter
from pathlib import Path

import pytest

from tabprobe.data.tabfact.reading import read_table
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe, invariants
from tabprobe.seeding import seeded_rng

TABFACT = Path(__file__).resolve().parents[2].parent / "shared" / "tabfact"
PROBES = (
    "tf_entity_flip",
    "tf_number_flip",
    "tf_negation",
    "tf_entity_rename",
    "tf_hypothesis_only",
    "tf_swapped_table",
)
pytestmark = pytest.mark.skipif(not TABFACT.is_dir(), reason="the TabFact data (../shared/tabfact) is absent")


@pytest.fixture(scope="module")
def split():
    """The first 300 val statements (file order) and every val table."""
    data = json.loads((TABFACT / "tokenized_data" / "val_examples.json").read_text(encoding="utf-8"))
    tables = {}
    for table_id, (_, _, caption) in data.items():
        tables[table_id] = read_table(TABFACT / "data" / "all_csv" / table_id, table_id, title=caption)
    examples = [
        Example(f"{table_id}:{i}", table_id, statement, "E" if label == 1 else "C")
        for table_id, (statements, labels, _) in data.items()
        for i, (statement, label) in enumerate(zip(statements, labels, strict=True))
    ]
    return examples[:300], tables


def test_each_probe_applies_to_some_and_keeps_its_promises(split):
    examples, tables = split
    applied = Counter()
    for name in PROBES:
        probe = get_probe(name)
        shared = {}
        for example in examples:
            table = tables[example.table_id]
            ctx = ProbeContext(rng=seeded_rng(7, name, example.uid), tables=tables, shared=shared)
            try:
                (out,) = probe.apply(example, table, None, ctx)
            except NotApplicable:
                continue
            applied[name] += 1
            assert invariants.breaches(invariants.of(probe), example, table, out) == [], (name, example)
            if name == "tf_entity_rename":
                new = out.provenance["new"]
                assert not any(new in cell for record in table.records for cell in record), (new, example)
    print("applied of 300:", dict(applied))
    assert all(applied[name] > 0 for name in PROBES), applied
