"""record_insertion: a record unrelated to the statement inserted into a TabFact table (from another
table with the same header, else recombined from this one's cells), lookup statements only."""

import numpy as np
from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.probes.tabfact.record_edits import insert_record, unrelated

PROBE = get_probe("record_insertion")
GAMES = TF_TABLES["2-1.html.csv"]


def test_a_record_of_a_table_with_the_same_header_is_inserted_and_shares_no_word_with_the_statement():
    for seed in range(8):
        (item,) = tabfact_outputs(PROBE, seed)["tf:0"]  # "the bears played in week 1"
        new = item.provenance["inserted_record"]
        # 2-2's ("1", "vikings", ...) names week 1; only ("2", "rams", ...) is unrelated
        assert (new["from_table"], new["from_record"]) == ("2-2.html.csv", 1)
        assert item.table.records[new["index"]] == ("2", "rams", "w 7 - 0", "45000")
        assert item.table.source_records[new["index"]] is None
        assert [r for r in item.table.records if r != tuple(new["cells"])] == list(GAMES.records)


def test_without_a_donor_table_the_record_recombines_this_tables_cells_and_copies_none():
    statement = "the packers played in week 2"
    for seed in range(20):
        ctx = ProbeContext(rng=np.random.default_rng(seed), tables={GAMES.table_id: GAMES})
        table, change = insert_record(GAMES, statement, ctx)
        new = change["inserted_record"]
        record = tuple(new["cells"])
        assert record not in GAMES.records and len(table.records) == len(GAMES.records) + 1
        assert record == tuple(GAMES.records[i][j] for j, i in enumerate(new["recombined_from"]))
        assert unrelated(record, {"packers", "played", "week", "2"})


def test_a_statement_naming_every_cell_of_a_column_and_other_kinds_are_skipped():
    out = tabfact_outputs(PROBE, 1)
    assert out["tf:5"].startswith("no record unrelated to the statement can be made")
    assert out["tf:1"].startswith("not a lookup statement (aggregate)")
    try:
        PROBE.apply(Example("x", "T", "a statement", "E"), object(), None, ProbeContext(np.random.default_rng(0), {}))
    except NotApplicable as reason:
        assert "relational" in str(reason)


def test_the_rule_keeps_both_labels():
    rule = PROBE.transition_rule
    assert rule.allowed == {"E": frozenset("E"), "C": frozenset("C")}
