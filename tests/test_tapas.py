"""TAPAS classifiers (`premise: table`, tabprobe.models.tapas), which read the table itself: tiny
random-weight TAPAS checkpoints built from a config (tests/tiny_tapas.py, nothing downloaded) run
through the infer_nli job in its own process and on the model server, on real alpha1 probe
examples (a 3-way head) and TabFact probe examples (a Refused / Entailed head); the tables' layout;
truncation counted; the model's input digest following the table; and the pairing of `premise:
table` with TAPAS checkpoints, at run time and in the config check."""

from __future__ import annotations

import copy
import json

import pytest
from test_config import DEFAULT, SCHEMA
from test_serving import private_servers  # noqa: F401 (autouse: each test its own server folder)
from test_tabfact_inference import EXAMPLES as TABFACT_EXAMPLES
from test_tabfact_inference import TABLES as TABFACT_TABLES
from test_training_and_resume import alpha1_probe
from tiny_bert import tiny_bert
from tiny_tapas import TABFACT_LABELS, tiny_tapas

from tabprobe import schemas, stages
from tabprobe.config import ConfigError, check
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.relational import table as relational
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS, table_from_arrow
from tabprobe.errors import ModelError
from tabprobe.io import read_parquet, write_parquet
from tabprobe.models import tapas
from tabprobe.models.checkpoints import init_model
from tabprobe.models.classifiers import infer, load_classifier
from tabprobe.probes.generation import generate

INFOBOX = Table(
    "T1",
    "Bob Dylan",
    (Row("born", ("May 24, 1941",)), Row("genres", ("folk", "rock")), Row("years active", ("1959-present",))),
)


@pytest.fixture(scope="module")
def three_way(tmp_path_factory):
    return tiny_tapas(tmp_path_factory.mktemp("tapas") / "nli")


@pytest.fixture(scope="module")
def two_way(tmp_path_factory):
    return tiny_tapas(tmp_path_factory.mktemp("tapas") / "tabfact", id2label=TABFACT_LABELS)


@pytest.fixture(scope="module")
def infotabs_probe(tmp_path_factory, shared_infotabs):
    path = tmp_path_factory.mktemp("probes") / "row_deletion.parquet"
    write_parquet(alpha1_probe(shared_infotabs, 12, 3, "row_deletion"), path, infobox.PROBE_EXAMPLES)
    return path


@pytest.fixture(scope="module")
def tabfact_probe(tmp_path_factory):
    path = tmp_path_factory.mktemp("probes") / "column_permutation.parquet"
    probe_examples, _ = generate("column_permutation", TABFACT_EXAMPLES, TABFACT_TABLES, seed=3)
    write_parquet(probe_examples, path, relational.RELATIONAL_PROBE_EXAMPLES)
    return path


def test_an_infobox_is_a_key_value_table_under_its_title_row():
    frame = tapas.data_frame(INFOBOX)
    assert list(frame.columns) == ["key", "value"]
    assert frame.values.tolist() == [
        ["title", "Bob Dylan"],
        ["born", "May 24, 1941"],
        ["genres", "folk, rock"],  # one infobox row, one TAPAS row
        ["years active", "1959-present"],
    ]
    # The hypothesis_only probe's empty table: the statement alone.
    assert tapas.data_frame(Table("T1", "", ())).shape == (0, 0)


def test_a_relational_table_keeps_its_header_and_records():
    table = TABFACT_TABLES["2-1.html.csv"]
    frame = tapas.data_frame(table)
    assert tuple(frame.columns) == table.header
    assert [tuple(r) for r in frame.values.tolist()] == list(table.records)


def test_the_tokens_carry_the_tables_columns_and_rows(three_way):
    loaded = load_classifier(three_way)
    [feature] = tapas.encode_tables(loaded.tokenizer, [INFOBOX], ["bob was born in 1941"], 128, ["u"]).features
    types = feature["token_type_ids"]
    assert all(len(t) == 7 for t in types) and len(types) == len(feature["input_ids"])
    assert {t[1] for t in types} == {0, 1, 2}  # the statement, then the key and value columns
    assert max(t[2] for t in types) == 4  # the title row and three infobox rows


@pytest.mark.parametrize(("head", "dataset"), [("three_way", "infotabs"), ("two_way", "tabfact")])
def test_tapas_answers_probe_files_in_its_own_process_and_on_the_server_alike(tmp_path, request, head, dataset):
    checkpoint = request.getfixturevalue(head)
    probe = request.getfixturevalue(f"{dataset}_probe")
    settings = dict(premise="table", max_length=128, batch_size=4, precision="fp32", shard_size=4)
    own, served = tmp_path / "own.parquet", tmp_path / "served.parquet"
    stages.infer_nli(str(probe), str(checkpoint), str(own), str(own) + ".json", **settings)
    stages.infer_nli(str(probe), str(checkpoint), str(served), str(served) + ".json", use_server=True, **settings)
    assert served.read_bytes() == own.read_bytes()
    predictions = read_parquet(own, schemas.PREDICTIONS)
    examples = read_parquet(probe, PROBE_EXAMPLES_SCHEMAS)
    assert predictions["uid"].to_pylist() == examples["uid"].to_pylist()
    probs = predictions["probs"].to_pylist()
    assert all(len(p) == 3 and sum(p) == pytest.approx(1.0, abs=1e-5) for p in probs)
    if head == "two_way":  # Refused is C, Entailed E; no N
        assert all(p[1] == 0.0 for p in probs) and set(predictions["pred"].to_pylist()) <= {"E", "C"}
    stats = json.loads((tmp_path / "own.parquet.json").read_text())
    assert stats["premise"] == "table" and stats["examples"] == examples.num_rows


def test_a_table_edit_changes_the_input_digest_and_an_identical_table_does_not(three_way, shared_infotabs):
    original = alpha1_probe(shared_infotabs, 6, 3, "original")
    records = original.to_pylist()
    first = table_from_arrow(records[0]["table"])
    edited = [dict(records[0], uid="same"), dict(records[0], uid="deleted"), dict(records[0], uid="moved")]
    edited[1]["table"] = first.with_rows(first.rows[1:]).to_arrow()
    edited[2]["table"] = first.with_rows(first.rows[1:] + first.rows[:1]).to_arrow()
    probe_examples = original.from_pylist(records + edited, schema=original.schema)
    loaded = load_classifier(three_way)
    table, _ = infer(probe_examples, loaded, "table", max_length=256, precision="fp32")
    digests = dict(zip(table["uid"].to_pylist(), table["input_digest"].to_pylist()))
    assert digests["same"] == digests[records[0]["uid"]]
    assert len({digests[records[0]["uid"]], digests["deleted"], digests["moved"]}) == 3
    assert len(set(digests.values())) == len(records) + 2  # the other examples' tables differ too


def test_a_table_too_long_loses_rows_and_is_counted(three_way, shared_infotabs):
    probe_examples = alpha1_probe(shared_infotabs, 16, 3, "original")
    loaded = load_classifier(three_way)
    tables = [table_from_arrow(t) for t in probe_examples["table"].to_pylist()]
    statements = probe_examples["hypothesis"].to_pylist()
    uids = probe_examples["uid"].to_pylist()
    whole = tapas.encode_tables(loaded.tokenizer, tables, statements, 512, uids)
    cut = tapas.encode_tables(loaded.tokenizer, tables, statements, 48, uids)
    longer = [len(f["input_ids"]) > 48 for f in whole.features]
    assert whole.truncated == 0 and cut.truncated == sum(longer) > 0
    assert all(len(f["input_ids"]) <= 48 for f in cut.features)
    for was, now, too_long in zip(whole.features, cut.features, longer):
        # A table that fits is given whole, as drop_rows_to_fit gives it; one that does not loses
        # rows from its end (its row ids stop earlier) or tokens from its cells.
        assert (now == was) if not too_long else len(now["input_ids"]) < len(was["input_ids"])
        if too_long:
            assert max(t[2] for t in now["token_type_ids"]) <= max(t[2] for t in was["token_type_ids"])
    _, stats = infer(probe_examples, loaded, "table", max_length=48, precision="fp32")
    assert stats["truncated"] == cut.truncated


def test_premise_table_goes_with_a_tapas_checkpoint_and_only_with_one(three_way, tmp_path, shared_infotabs):
    probe_examples = alpha1_probe(shared_infotabs, 2, 3, "original")
    with pytest.raises(ModelError, match="reads the table itself.*premise: table"):
        infer(probe_examples, load_classifier(three_way), "para", max_length=128)
    bert = load_classifier(tiny_bert(tmp_path / "bert", head=True, layers=1, max_positions=128))
    with pytest.raises(ModelError, match="only a TAPAS checkpoint.*model_type is 'bert'"):
        infer(probe_examples, bert, "table", max_length=128)


def test_an_untrained_head_on_a_tapas_base_reads_tables(tmp_path, shared_infotabs):
    base = tiny_tapas(tmp_path / "base", id2label=None)
    init_model(str(base), str(tmp_path / "init"), seed=0)
    table, stats = infer(
        alpha1_probe(shared_infotabs, 4, 3, "original"), load_classifier(tmp_path / "init"), "table", max_length=128
    )
    assert table.num_rows == stats["examples"] == 4


def test_a_missing_pandas_is_an_error_that_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # `import pandas` then fails as if absent
    with pytest.raises(ModelError, match=r"pip install -e '\.\[tapas\]'"):
        tapas.require_pandas()


def config_with_model(model: dict) -> dict:
    config = copy.deepcopy(DEFAULT)
    config["models"]["mine"] = model
    return config


def test_the_config_check_pairs_premise_table_with_tapas_checkpoints(three_way, tmp_path):
    check(config_with_model({"checkpoint": str(three_way), "premise": "table"}), SCHEMA)
    bert = tiny_bert(tmp_path / "bert", head=True, layers=1)
    cases = [
        ({"checkpoint": str(three_way), "premise": "para"}, r"models\.mine\.premise: a tapas checkpoint reads"),
        ({"checkpoint": str(bert), "premise": "table"}, r"models\.mine\.premise: `premise: table` .*'bert'"),
        ({"train": {"base": str(three_way)}, "premise": "table"}, r"models\.mine\.premise: .*`train` fine-tunes"),
    ]
    for model, message in cases:
        with pytest.raises(ConfigError, match=message):
            check(config_with_model(model), SCHEMA)
    config = config_with_model({"checkpoint": str(three_way), "premise": "table"})
    config["inoculation"] = {"model": "mine"}
    with pytest.raises(ConfigError, match=r"inoculation\.model: mine reads the table itself"):
        check(config, SCHEMA)
