"""column_permutation: a TabFact table's columns in a new order, cells moving with their header."""

from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.probes import get_probe

PROBE = get_probe("column_permutation")


def test_every_statement_gets_its_columns_reordered_with_their_cells():
    for seed in range(8):
        for uid, out in tabfact_outputs(PROBE, seed).items():
            (item,) = out
            before = TF_TABLES[item.table.table_id]
            order = item.provenance["column_order"]
            assert item.table.header == tuple(before.header[i] for i in order) != before.header
            assert item.table.records == tuple(tuple(r[i] for i in order) for r in before.records)
            assert item.table.source_records == before.source_records, uid


def test_the_rule_keeps_both_labels():
    assert PROBE.transition_rule.allowed == {"E": frozenset("E"), "C": frozenset("C")}
