"""The program-executed record probes on TabFact's real tables (skipped when ../shared/tabfact is
absent): over the bootstrap programs of the val and test tables, every example's expected label is
what re-executing its program on the edited table gives, and deleting a record the program did not
read never changes the label."""

import json
from collections import Counter
from pathlib import Path

import pytest

from tabprobe.data.tabfact.programs import ProgramError, execute
from tabprobe.data.tabfact.reading import read_table
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe, invariants
from tabprobe.probes.tabfact.needs import ProgramFacts
from tabprobe.seeding import seeded_rng

TABFACT = Path(__file__).resolve().parents[3] / "shared" / "tabfact"
PROGRAM_PROBES = (
    "program_record_deletion",
    "relevant_record_deletion",
    "irrelevant_record_deletion",
    "program_cell_update",
)
pytestmark = pytest.mark.skipif(not TABFACT.is_dir(), reason="TabFact is not beside the checkout (../shared/tabfact)")


@pytest.fixture(scope="module")
def bootstrap():
    """The val and test tables that bootstrap.json has programs for, and the statements whose program
    gives True (their label, E) on the original table, with what it read there."""
    boot = json.loads((TABFACT / "bootstrap" / "bootstrap.json").read_text(encoding="utf-8"))
    splits = set()
    for split in ("val", "test"):
        splits |= set(json.loads((TABFACT / "data" / f"{split}_id.json").read_text()))
    tables, examples, programs = {}, [], {}
    for table_id in sorted(set(boot) & splits):
        tables[table_id] = read_table(TABFACT / "data" / "all_csv" / table_id, table_id, title=boot[table_id][0][2])
        for i, (statement, _, _, _, program) in enumerate(boot[table_id]):
            try:
                outcome = execute(program, tables[table_id].header, tables[table_id].records)
            except ProgramError:
                continue
            if outcome.result:
                uid = f"{table_id}:{i}"
                programs[uid] = ProgramFacts(program, outcome.records_read, outcome.columns_read)
                examples.append(Example(uid, table_id, statement, "E"))
    return tables, examples, programs


@pytest.mark.parametrize("name", PROGRAM_PROBES)
def test_every_expected_label_is_what_the_program_gives_on_the_edited_table(name, bootstrap):
    tables, examples, programs = bootstrap
    probe = get_probe(name)
    labels, skipped, shared = Counter(), Counter(), {}
    for example in examples:
        ctx = ProbeContext(seeded_rng(2020, name, example.uid), tables, shared=shared, needs={"programs": programs})
        try:
            (item,) = probe.apply(example, tables[example.table_id], None, ctx)
        except NotApplicable as reason:
            skipped[str(reason)] += 1
            continue
        result = execute(programs[example.uid].program, item.table.header, item.table.records).result
        assert item.expected == ("E" if result else "C"), example.uid
        assert invariants.breaches(invariants.of(probe), example, tables[example.table_id], item) == []
        labels[item.expected] += 1
    assert sum(labels.values()) > len(examples) / 2, (labels, skipped)
    if name == "irrelevant_record_deletion":
        assert set(labels) == {"E"}
    if name == "relevant_record_deletion":  # most deletions of evidence refute
        assert labels["C"] > labels["E"]
