"""relevant_row_deletion: every row the relevance source names deleted (paper section 5.2)."""

import json

from probe_helpers import _records


def test_relevant_row_deletion_deletes_every_relevant_row_and_nothing_else():
    records, _ = _records("relevant_row_deletion")
    first = next(r for r in records if r["orig_uid"] == "dev:2")
    assert [row["key"] for row in first["table"]["rows"]] == ["Died", "Occupation", "Awards"]
    assert [d["key"] for d in json.loads(first["provenance"])["deleted_rows"]] == ["Born", "Spouse(s)"]


def test_examples_the_relevance_source_does_not_cover_are_skipped_and_counted():
    records, coverage = _records("relevant_row_deletion", relevant={"dev:2": ("Born",), "dev:3": ()})
    assert [r["orig_uid"] for r in records] == ["dev:2"]
    assert coverage["skipped"] == {
        "the relevance source does not cover this example": 3,
        "the relevance source names no row of the table": 1,
    }
