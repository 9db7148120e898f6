"""The `tapex` premise rendering (TAPEX's linearisation) and BART sequence classifiers, the
architecture of TAPEX's checkpoints, with tiny random-weight BARTs (tests/tiny_bart.py): through
infer_nli and the model server on InfoTabS and TabFact probe files, with three- and two-label
heads, and BART's input layout (no token_type_ids; the same end-of-sequence tokens in every row, an
empty premise and a cut one included, which BART's classification head requires)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from test_serving import private_servers  # noqa: F401  (autouse: each test its own server folder)
from test_tabfact_inference import EXAMPLES as TABFACT_EXAMPLES
from test_tabfact_inference import TABLES as TABFACT_TABLES
from test_training_and_resume import alpha1_probe
from tiny_bart import TAPEX_TABFACT_LABELS, tiny_bart
from transformers import BertConfig

from tabprobe import schemas, stages
from tabprobe.data.datasets import get_dataset
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.relational import table as relational
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS, render
from tabprobe.io import read_parquet, write_parquet
from tabprobe.models.classifiers import load_classifier, predict_batches
from tabprobe.models.encoding import collate, encode, pairs_only
from tabprobe.probes.generation import generate

PERSON = Table(
    "T1",
    "Ada Quill",
    (Row("Born", ("3 March 1901", "Lisbon, Portugal")), Row("Occupation", ("Poet", "translator"))),
    "Person",
)
SEASON = RelationalTable(
    "2-1.html.csv", "1990 season", ("week", "opponent", "result"), (("1", "bears", "w 21 - 3"), ("2", "Lions", "l 10"))
)
# TAPEX reads the statement first (its tokenizer wrote "{statement} col : ..."): hypothesis_first.
SETTINGS = dict(premise="tapex", batch_size=8, max_length=256, precision="fp32", pair_order="hypothesis_first")


def test_tapex_writes_an_infobox_as_a_key_value_table_whose_first_row_is_the_title():
    assert render(PERSON, "tapex") == (
        "col : key | value row 1 : title | ada quill row 2 : born | 3 march 1901, lisbon, portugal "
        "row 3 : occupation | poet, translator"
    )
    assert render(PERSON.with_rows([]), "tapex") == "col : key | value row 1 : title | ada quill"


def test_tapex_writes_a_relational_table_under_its_header_without_its_caption():
    assert (
        render(SEASON, "tapex")
        == "col : week | opponent | result row 1 : 1 | bears | w 21 - 3 row 2 : 2 | lions | l 10"
    )
    empty = RelationalTable(SEASON.table_id, SEASON.title, SEASON.header, ())
    assert render(empty, "tapex") == ""  # no records, no premise: as every TabFact rendering


def test_every_dataset_offers_the_tapex_rendering():
    for name in ("infotabs", "tabfact"):
        assert "tapex" in get_dataset(name).renderings


@pytest.fixture(scope="module")
def barts(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bart")
    return {
        "nli": tiny_bart(folder / "nli", max_positions=256),
        "two_label": tiny_bart(folder / "two_label", id2label=TAPEX_TABFACT_LABELS, max_positions=256, seed=1),
    }


@pytest.fixture(scope="module")
def probe_files(tmp_path_factory, shared_infotabs) -> dict[str, Path]:
    """An InfoTabS file whose tables are full for some examples and empty (hypothesis_only) for
    others, so that one batch mixes both, and a TabFact file."""
    folder = tmp_path_factory.mktemp("probes")
    infotabs = pa.concat_tables(
        [alpha1_probe(shared_infotabs, 20, 3), alpha1_probe(shared_infotabs, 6, 4, "hypothesis_only")]
    )
    tabfact, _ = generate("column_permutation", TABFACT_EXAMPLES, TABFACT_TABLES, seed=3)
    write_parquet(infotabs, folder / "infotabs.parquet", infobox.PROBE_EXAMPLES)
    write_parquet(tabfact, folder / "tabfact.parquet", relational.RELATIONAL_PROBE_EXAMPLES)
    return {"infotabs": folder / "infotabs.parquet", "tabfact": folder / "tabfact.parquet"}


def infer_nli(probe: Path, checkpoint: Path, out: Path, **more) -> Path:
    stages.infer_nli(str(probe), str(checkpoint), str(out), str(out) + ".json", **SETTINGS, **more)
    return out


@pytest.mark.parametrize("head", ["nli", "two_label"])
@pytest.mark.parametrize("dataset", ["infotabs", "tabfact"])
def test_a_bart_classifier_predicts_on_probe_files_from_the_tapex_premise(tmp_path, barts, probe_files, dataset, head):
    out = infer_nli(probe_files[dataset], barts[head], tmp_path / "pred.parquet")
    predictions = read_parquet(out, schemas.PREDICTIONS)
    probe_examples = read_parquet(probe_files[dataset], PROBE_EXAMPLES_SCHEMAS)
    assert predictions["uid"].to_pylist() == probe_examples["uid"].to_pylist()
    probs = predictions["probs"].to_pylist()
    assert all(len(p) == 3 and sum(p) == pytest.approx(1.0, abs=1e-5) for p in probs)
    if head == "two_label":  # Refused -> C, Entailed -> E, by their names; N is 0
        assert all(p[1] == 0.0 for p in probs) and set(predictions["pred"].to_pylist()) <= {"E", "C"}
    stats = json.loads(Path(str(out) + ".json").read_text())
    assert stats["premise"] == "tapex" and stats["examples"] == len(probs)
    again = infer_nli(probe_files[dataset], barts[head], tmp_path / "again.parquet")
    assert again.read_bytes() == out.read_bytes()


def test_every_row_holds_the_same_end_of_sequence_tokens_even_cut_or_without_a_premise(barts):
    loaded = load_classifier(barts["nli"])
    assert pairs_only(loaded.model.config) and not pairs_only(BertConfig())  # BERT keeps a lone hypothesis
    premises = [render(PERSON, "tapex"), "", " ".join([render(SEASON, "tapex")] * 8)]
    hypotheses = ["Ada Quill was a poet.", "the bears win in week 1", "the lions lose in week 2"]
    tokenizer, eos = loaded.tokenizer, loaded.tokenizer.eos_token_id
    encoded = encode(tokenizer, premises, hypotheses, 128, "hypothesis_first", pairs_only(loaded.model.config))
    ids = [f["input_ids"] for f in encoded.features]
    assert [row.count(eos) for row in ids] == [3, 3, 3]  # <s> A </s></s> B </s>, as BART pairs
    assert all(row[-1] == eos and len(row) <= 128 for row in ids) and encoded.truncated == 1
    # The cut is the premise's: the whole hypothesis still follows <s>.
    whole = tokenizer(hypotheses[2], add_special_tokens=False)["input_ids"]
    assert ids[2][1 : 1 + len(whole)] == whole
    batch = collate(encoded.features, tokenizer.pad_token_id)
    assert "token_type_ids" not in batch and batch["input_ids"][1, -1] == tokenizer.pad_token_id
    probs = predict_batches(loaded.model, encoded.features, [(0, 3)], tokenizer.pad_token_id, loaded.order, "cpu")
    assert probs.shape == (3, 3)
    # The hypothesis alone, as a BERT is given it, has one </s> to the pairs' three: BART refuses
    # the batch, which is why an encoder-decoder gets pairs only.
    alone = encode(tokenizer, premises, hypotheses, 128, "hypothesis_first")
    with pytest.raises(ValueError, match="same number of <eos> tokens"):
        predict_batches(loaded.model, alone.features, [(0, 3)], tokenizer.pad_token_id, loaded.order, "cpu")


@pytest.mark.parametrize("dataset", ["infotabs", "tabfact"])
def test_the_model_server_gives_a_bart_classifier_the_bytes_of_a_job_that_loads_it(
    tmp_path, barts, probe_files, dataset
):
    alone = infer_nli(probe_files[dataset], barts["two_label"], tmp_path / "alone.parquet")
    server_log = tmp_path / "server.log"
    served = infer_nli(
        probe_files[dataset],
        barts["two_label"],
        tmp_path / "served.parquet",
        use_server=True,
        server_log=str(server_log),
    )
    assert "loaded " in server_log.read_text() and " examples in " in server_log.read_text()
    assert served.read_bytes() == alone.read_bytes()
