"""num_verbosity: a cell the hypothesis names given an explicitly irrelevant number; on
tests/test_numeric_probes.py's split."""

import json

from probe_helpers import run


def test_num_verbosity_adds_an_explicitly_irrelevant_number_to_the_cell():
    out, coverage = run("num_verbosity")
    record = out["dev:6"]  # "Ada Quill has 2 children."
    assert record["hypothesis"] == "Ada Quill has 2 children."
    provenance = json.loads(record["provenance"])
    other = provenance["distractor"]
    assert other > 0 and other != 2
    assert {r["key"]: r["values"] for r in record["table"]["rows"]}["Children"] == [f"2 (not {other})"]
    assert "dev:5" not in out  # 12 dams: not in the table
