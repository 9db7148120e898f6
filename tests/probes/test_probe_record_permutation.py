"""record_permutation: the records of a TabFact table in a new order; ordinal statements skipped."""

from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.probes import get_probe
from tabprobe.probes.tabfact.record.record_permutation import ORDINAL_SKIPPED

PROBE = get_probe("record_permutation")
GAMES = TF_TABLES["2-1.html.csv"]


def test_the_same_records_come_in_a_new_order_with_their_sources():
    for seed in range(8):
        out = tabfact_outputs(PROBE, seed)
        for uid in ("tf:0", "tf:1", "tf:2", "tf:3"):  # lookups, a count and a superlative
            (item,) = out[uid]
            order = item.provenance["record_order"]
            assert item.table.records == tuple(GAMES.records[i] for i in order) != GAMES.records
            assert item.table.source_records == tuple(order) and item.table.header == GAMES.header


def test_ordinal_statements_and_one_record_tables_are_skipped():
    out = tabfact_outputs(PROBE, 2)
    assert out["tf:4"] == ORDINAL_SKIPPED
    assert out["tf:5"] == "table has fewer than two different records"


def test_the_rule_keeps_both_labels():
    assert PROBE.transition_rule.allowed == {"E": frozenset("E"), "C": frozenset("C")}
