"""irrelevant_record_deletion: a record the program did not read deleted; execution keeps the label,
and an invariant holds the probe to the gold label."""

from dataclasses import replace

from test_probes import TF_EXAMPLES, TF_TABLES, tabfact_outputs

from tabprobe.probes import Example, get_probe, invariants

PROBE = get_probe("irrelevant_record_deletion")


def test_the_deleted_record_is_one_the_program_did_not_read_and_the_label_stays():
    for seed in range(8):
        out = tabfact_outputs(PROBE, seed)
        (lookup,) = out["tf:0"]
        assert lookup.provenance["deleted_record"]["index"] != 0 and lookup.expected == "E"
        (count,) = out["tf:1"]
        assert count.provenance["deleted_record"]["cells"][1] != "lions" and count.expected == "E"
        assert out["tf:2"] == "the program read every record of the table"  # argmax ranks them all


def test_an_example_whose_expected_label_is_not_gold_breaks_its_invariants():
    (item,) = tabfact_outputs(PROBE, 0)["tf:0"]
    example = Example(**TF_EXAMPLES.to_pylist()[0])
    wrong = replace(item, expected="C")
    broken = {
        name for name, _ in invariants.breaches(invariants.of(PROBE), example, TF_TABLES[example.table_id], wrong)
    }
    assert broken == {"expects the gold label", "expects what its program gives on the new table"}
