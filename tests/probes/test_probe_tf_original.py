"""tf_original: TabFact's unperturbed statements, which every TabFact probe is compared with."""

from tf_fixtures import PLAYERS, breaches, run

from tabprobe.probes import get_probe
from tabprobe.probes.tabfact.record_edits import TABFACT_PROBE

STATEMENT = "lee park score 7 goal in 1990 ."


def test_the_statement_and_its_table_are_kept_and_the_gold_label_expected():
    for label in ("E", "C"):
        out = run("tf_original", STATEMENT, label=label)
        assert (out.hypothesis, out.table, out.expected) == (STATEMENT, PLAYERS, label)
        assert breaches("tf_original", STATEMENT, out, label=label) == []


def test_it_is_tabfacts_and_over_two_labels():
    probe = get_probe("tf_original")
    assert probe.datasets == ("tabfact",) and probe.labels == TABFACT_PROBE["labels"] == frozenset({"E", "C"})
    assert probe.judged_by == "expected"
