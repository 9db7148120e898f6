"""num_decimal: integers other than years written with a decimal point; on tests/test_numeric_probes.py's split."""

from probe_helpers import run


def test_num_decimal_leaves_years_alone():
    out, coverage = run("num_decimal")
    assert out["dev:2"]["hypothesis"] == "The Río Verde is 42.0 km long and has 3.0 tributaries."
    assert {r["key"]: r["values"] for r in out["dev:2"]["table"]["rows"]}["Length"] == ["42.0 km"]
    assert out["dev:4"]["hypothesis"] == "The Río Azul is 1,234.0 km long."
    assert "dev:3" not in out  # only a year
    assert (
        coverage["skipped"]["no integer (other than a year) in the hypothesis that stands as a number everywhere"] == 2
    )
