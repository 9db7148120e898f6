"""original: the gold examples as they are (the contract test's split, tests/test_probes.py)."""

from test_probes import EXAMPLES, TABLES

from tabprobe.probes.generation import generate


def test_original_is_the_identity():
    out, _ = generate("original", EXAMPLES, TABLES, seed=1)
    assert out["uid"].to_pylist() == EXAMPLES["uid"].to_pylist()
    assert out["expected"].to_pylist() == EXAMPLES["label"].to_pylist()
    assert [t["rows"] for t in out["table"].to_pylist()] == [
        TABLES[r["table_id"]].to_arrow()["rows"] for r in EXAMPLES.to_pylist()
    ]
