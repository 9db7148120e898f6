"""record_deletion: one random record of a TabFact table deleted, lookup statements only; on the
contract test's TabFact fixture (tests/test_probes.py)."""

from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.probes import get_probe

PROBE = get_probe("record_deletion")


def test_a_lookup_loses_one_record_and_keeps_the_rest_in_order_with_their_sources():
    for seed in range(8):
        for uid in ("tf:0", "tf:3"):
            (item,) = tabfact_outputs(PROBE, seed)[uid]
            before = TF_TABLES["2-1.html.csv"]
            gone = item.provenance["deleted_record"]
            kept = [i for i in range(len(before.records)) if i != gone["index"]]
            assert item.table.records == tuple(before.records[i] for i in kept)
            assert item.table.source_records == tuple(kept)  # where each record stood in the original
            assert gone["cells"] == list(before.records[gone["index"]]) and item.expected is None


def test_statements_of_other_kinds_are_skipped_naming_the_kind():
    out = tabfact_outputs(PROBE, 1)
    assert out["tf:1"].startswith("not a lookup statement (aggregate)")
    assert out["tf:2"].startswith("not a lookup statement (superlative)")
    assert out["tf:4"].startswith("not a lookup statement (ordinal)")
    assert out["tf:5"] == "table has fewer than two records"


def test_the_rule_lets_a_lookup_lose_its_evidence_but_never_gain_it():
    rule = PROBE.transition_rule
    assert rule.is_valid("E", "E") and rule.is_valid("E", "C")
    assert rule.is_valid("C", "C") and not rule.is_valid("C", "E")


def test_the_choice_depends_on_the_seed_and_repeats_with_it():
    chosen = {tabfact_outputs(PROBE, seed)["tf:0"][0].provenance["deleted_record"]["index"] for seed in range(12)}
    assert len(chosen) > 1
    assert tabfact_outputs(PROBE, 3) == tabfact_outputs(PROBE, 3)
