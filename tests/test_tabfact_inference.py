"""A sequence classifier's predictions on TabFact probe files: the relational tables rendered by
TabFact's renderings (data/tables.py dispatches by table type), through the same infer_nli job the
rule runs, with tiny random-weight BERTs: an InfoTabS-style 3-way head (its NEUTRAL answers are
kept as predicted, for the report to count) and a two-label ENTAILED / REFUTED head (E or C, N = 0)."""

from __future__ import annotations

import pyarrow as pa
import pytest
from tiny_bert import tiny_bert

from tabprobe import schemas, stages
from tabprobe.data.relational import table as relational
from tabprobe.data.relational.render import render as relational_render
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import render
from tabprobe.io import read_parquet, write_parquet
from tabprobe.probes.generation import generate

HEADER = ("week", "opponent", "result")
TABLES = {
    "2-1.html.csv": RelationalTable(
        "2-1.html.csv", "1990 season", HEADER, (("1", "bears", "w 21 - 3"), ("2", "lions", "l 10 - 17"))
    ),
    "2-2.html.csv": RelationalTable(
        "2-2.html.csv", "1991 season", HEADER, (("1", "vikings", "l 3 - 9"), ("2", "rams", "w 7 - 0"))
    ),
}
EXAMPLES = pa.table(
    {
        "uid": ["val:2-1.html.csv:0", "val:2-1.html.csv:1", "val:2-2.html.csv:0"],
        "table_id": ["2-1.html.csv", "2-1.html.csv", "2-2.html.csv"],
        "hypothesis": ["the bears be the opponent in week 1", "the lions win in week 2", "the rams lose in week 2"],
        "label": ["E", "C", "C"],
    },
    schema=schemas.EXAMPLES,
)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("ckpt") / "tiny", layers=1, max_positions=128, head=True)


@pytest.mark.parametrize("probe", ["column_permutation", "tf_hypothesis_only"])
def test_a_classifier_predicts_on_tabfact_probe_files(tmp_path, checkpoint, probe):
    probe_examples, _ = generate(probe, EXAMPLES, TABLES, seed=3)
    assert probe_examples.schema.equals(relational.RELATIONAL_PROBE_EXAMPLES)
    probe_file = tmp_path / "probe.parquet"
    write_parquet(probe_examples, probe_file, relational.RELATIONAL_PROBE_EXAMPLES)
    out = tmp_path / "pred.parquet"
    stages.infer_nli(str(probe_file), str(checkpoint), str(out), str(out) + ".json", premise="para", max_length=128)
    predictions = read_parquet(out, schemas.PREDICTIONS)
    assert predictions["uid"].to_pylist() == probe_examples["uid"].to_pylist()
    assert all(len(p) == 3 for p in predictions["probs"].to_pylist())  # E, N, C: a 3-way head's answers
    again = tmp_path / "again.parquet"
    stages.infer_nli(str(probe_file), str(checkpoint), str(again), str(again) + ".json", premise="para", max_length=128)
    assert again.read_bytes() == out.read_bytes()


def test_a_relational_table_is_rendered_by_tabfacts_renderings():
    table = TABLES["2-1.html.csv"]
    for how in ("para", "struct", "markdown", "hypothesis_only"):
        assert render(table, how) == relational_render(table, how)
    assert "bears" in render(table, "para") and render(table, "hypothesis_only") == ""


@pytest.mark.parametrize(
    ("id2label", "label_map"),
    [({0: "REFUTED", 1: "ENTAILED"}, None), ({0: "LABEL_0", 1: "LABEL_1"}, {"0": "C", "1": "E"})],
)
def test_a_two_label_classifier_predicts_E_or_C_with_N_at_zero(tmp_path, id2label, label_map):
    checkpoint = tiny_bert(tmp_path / "tiny", layers=1, max_positions=128, head=True, id2label=id2label)
    probe_examples, _ = generate("column_permutation", EXAMPLES, TABLES, seed=3)
    probe_file = tmp_path / "probe.parquet"
    write_parquet(probe_examples, probe_file, relational.RELATIONAL_PROBE_EXAMPLES)
    out = tmp_path / "pred.parquet"
    stages.infer_nli(
        str(probe_file),
        str(checkpoint),
        str(out),
        str(out) + ".json",
        premise="para",
        label_map=label_map,
        max_length=128,
    )
    predictions = read_parquet(out, schemas.PREDICTIONS)
    probs = predictions["probs"].to_pylist()
    assert all(len(p) == 3 and p[1] == 0.0 and p[0] + p[2] == pytest.approx(1.0) for p in probs)
    assert set(predictions["pred"].to_pylist()) <= {"E", "C"}
    # The head's output 1 (ENTAILED) is E, output 0 (REFUTED) C.
    assert [p[0] > p[2] for p in probs] == [p == "E" for p in predictions["pred"].to_pylist()]
