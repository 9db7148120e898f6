"""num_words: integers written out in words, in the hypothesis and the table alike; on
tests/test_numeric_probes.py's split."""

import json

import pyarrow as pa
from probe_helpers import run
from test_numeric_probes import EXAMPLES

from tabprobe import schemas
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.generation import generate
from tabprobe.probes.shared.text_edits import apply_changes


def test_num_words_rewrites_hypothesis_and_table_alike():
    out, coverage = run("num_words")
    first = out["dev:2"]
    assert first["hypothesis"] == "The Río Verde is forty-two km long and has three tributaries."
    cells = {r["key"]: r["values"] for r in first["table"]["rows"]}
    assert cells["Length"] == ["forty-two km"] and cells["Tributaries"] == ["three"]
    assert cells["Discovered"] == ["1979"]  # not mentioned in this hypothesis: untouched
    assert out["dev:3"]["hypothesis"] == "The Río Verde was discovered in nineteen seventy-nine."
    assert out["dev:4"]["hypothesis"] == "The Río Azul is one thousand, two hundred and thirty-four km long."
    assert coverage["skipped"] == {"no integer in the hypothesis that stands as a number everywhere it occurs": 1}
    for record in out.values():
        assert record["expected"] == record["label"]
        provenance = json.loads(record["provenance"])
        original = dict(zip(EXAMPLES["uid"].to_pylist(), EXAMPLES["hypothesis"].to_pylist()))[record["orig_uid"]]
        assert apply_changes(original, provenance["changes"]) == record["hypothesis"]


def test_num_words_leaves_a_number_alone_where_the_table_cannot_follow():
    table = Table("T30", "Ada Quill", (Row("Years active", ("1999–present",)), Row("Children", ("2",))), "Person")
    examples = pa.table(
        {
            "uid": ["dev:2", "dev:3"],
            "table_id": ["T30", "T30"],
            "hypothesis": ["Ada Quill has been active since 1999.", "Ada Quill has 2 children."],
            "label": ["E", "E"],
        },
        schema=schemas.EXAMPLES,
    )
    out, coverage = generate("num_words", examples, {"T30": table}, seed=1)
    # 1999 stands in "1999–present", which the rewrite cannot reach: the evidence would stay in
    # digits while the hypothesis said "nineteen ninety-nine"
    assert out["orig_uid"].to_pylist() == ["dev:3"]
    assert out["hypothesis"].to_pylist() == ["Ada Quill has two children."]
