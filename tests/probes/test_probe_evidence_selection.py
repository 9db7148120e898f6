"""evidence_selection: each row of an ENTAIL or CONTRADICT example deleted in turn (paper section 5.3)."""

import json

from probe_helpers import _records
from test_evidence import POET


def test_evidence_selection_deletes_each_row_of_ENTAIL_and_CONTRADICT_examples():
    records, coverage = _records("evidence_selection")
    by_gold = {}
    for r in records:
        by_gold.setdefault(r["orig_uid"], []).append(r)
    assert sorted(by_gold) == ["dev:2", "dev:3", "dev:4", "dev:6"]  # dev:5 is NEUTRAL
    rows = by_gold["dev:2"]
    assert [r["uid"] for r in rows] == [f"dev:2/evidence_selection/{i}" for i in range(5)]
    provenance = [json.loads(r["provenance"]) for r in rows]
    assert [p["deleted_row"]["key"] for p in provenance] == list(POET.keys)
    assert [p["relevant"] for p in provenance] == [True, False, False, True, False]
    assert coverage["perturbed"] == 4 and coverage["probe_examples"] == 5 + 5 + 4 + 6
