"""irrelevant_row_deletion: one row the relevance source does not name deleted (paper section 5.2)."""

import json

from probe_helpers import RELEVANT, TABLES, _records


def test_irrelevant_row_deletion_never_deletes_a_relevant_row():
    for seed in range(10):
        for record in _records("irrelevant_row_deletion", seed=seed)[0]:
            deleted = json.loads(record["provenance"])["deleted_row"]["key"]
            assert deleted not in RELEVANT[record["orig_uid"]]
            assert len(record["table"]["rows"]) == len(TABLES[record["table_id"]].rows) - 1
