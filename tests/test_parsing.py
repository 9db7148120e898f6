"""The hypotheses' spaCy parse (data/parsing.py) that the hypothesis probes read: the parse file,
its determinism, and the model's setup error; on tests/test_hypothesis_probes.py's split."""

from __future__ import annotations

import pytest
from test_hypothesis_probes import EXAMPLES

from tabprobe.data import parsing
from tabprobe.errors import CorruptFileError


def test_parse_file_round_trips_and_rejects_stale_or_damaged_files(nlp, tmp_path):
    texts, uids = ["Ada Quill is a poet.", "Bo Lind lives in Oslo."], ["dev:2", "dev:3"]
    path = tmp_path / "dev.spacy"
    parsing.write(parsing.parse(nlp, texts, uids, ["T12", "T13"]), path)
    docs = parsing.read(path, zip(uids, texts))
    assert [docs[u].text for u in uids] == texts
    assert docs["dev:3"].user_data["table_id"] == "T13"
    assert [(e.text, e.label_) for e in docs["dev:3"].ents] == [(e.text, e.label_) for e in nlp(texts[1]).ents]
    with pytest.raises(CorruptFileError, match="does not match the examples"):
        parsing.read(path, [("dev:2", "Ada Quill is a painter.")])
    with pytest.raises(CorruptFileError, match="does not match the examples"):
        parsing.read(path, [("dev:9", "Bo Lind lives in Oslo.")])
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(CorruptFileError, match="cannot read"):
        parsing.read(path)


def test_parse_is_byte_identical_with_one_or_two_processes(nlp, tmp_path):
    texts = EXAMPLES["hypothesis"].to_pylist() * 3
    uids = [f"dev:{i}" for i in range(len(texts))]
    one = parsing.parse(nlp, texts, uids, batch_size=4, n_process=1).to_bytes()
    two = parsing.parse(nlp, texts, uids, batch_size=4, n_process=2).to_bytes()
    assert one == two


def test_an_unknown_spacy_model_is_a_clear_error():
    from tabprobe.errors import SetupError

    with pytest.raises(SetupError, match="not installed"):
        parsing.resolve_model("xx_no_such_model")
