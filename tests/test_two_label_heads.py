"""Two-label classification heads (TabFact's ENTAILED / REFUTED): how their outputs map onto E
and C (N is 0), training one on a dataset's two labels, and an untrained one from init_model.
Tiny random BERTs built from a config; nothing is downloaded."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
import torch
from tiny_bert import tiny_bert

from tabprobe import schemas, stages
from tabprobe.data.relational.table import RelationalTable
from tabprobe.errors import ModelError
from tabprobe.models.checkpoints import (
    checkpoint_labels,
    head_id2label,
    in_label_order,
    label_order,
    narrowed_head,
    new_classifier,
    trained_head,
)
from tabprobe.models.classifiers import load_classifier
from tabprobe.models.training import TrainSettings, train

TWO_LABEL_NAMES = [
    ({0: "ENTAILED", 1: "REFUTED"}, [0, None, 1]),
    ({0: "refuted", 1: "entailed"}, [1, None, 0]),
    ({0: "Refused", 1: "Entailed"}, [1, None, 0]),  # TAPAS's and TAPEX's TabFact heads
    ({0: "entailment", 1: "not_entailment"}, [0, None, 1]),
    ({0: "non-entailment", 1: "entailment"}, [1, None, 0]),
    ({0: "E", 1: "C"}, [0, None, 1]),
]


@pytest.mark.parametrize(("id2label", "order"), TWO_LABEL_NAMES)
def test_a_two_label_head_is_read_as_E_and_C_by_its_names(id2label, order):
    assert label_order(id2label, None, "x") == order


def test_a_two_label_head_is_read_through_a_labels_map_by_name_or_index():
    assert label_order({0: "LABEL_0", 1: "LABEL_1"}, {"LABEL_0": "C", "LABEL_1": "E"}, "x") == [1, None, 0]
    assert label_order({0: "LABEL_0", 1: "LABEL_1"}, {"0": "C", "1": "E"}, "x") == [1, None, 0]
    assert label_order({0: "yes", 1: "no"}, {"yes": "E", "no": "C"}, "x") == [0, None, 1]


@pytest.mark.parametrize(
    ("id2label", "label_map"),
    [
        ({0: "LABEL_0", 1: "LABEL_1"}, None),  # names nobody can read
        ({0: "entailment", 1: "neutral"}, None),  # E and N: not a fact-checking head
        ({0: "ENTAILED", 1: "REFUTED"}, {"ENTAILED": "E", "REFUTED": "E"}),  # not one-to-one
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, {"entailment": "E", "contradiction": "C"}),
        ({0: "a", 1: "b", 2: "c", 3: "d"}, {"a": "E", "b": "C"}),
    ],
)
def test_a_head_that_maps_onto_neither_ENC_nor_EC_is_refused(id2label, label_map):
    with pytest.raises(ModelError, match=r"do not map one-to-one onto E, N, C.*Add `labels:`"):
        label_order(id2label, label_map, "ckpt")


def test_a_two_label_heads_probabilities_have_an_N_of_zero():
    probs = torch.tensor([[0.25, 0.75], [0.875, 0.125]])
    assert in_label_order(probs, [1, None, 0]).tolist() == [[0.75, 0.0, 0.25], [0.125, 0.0, 0.875]]
    assert probs.tolist() == [[0.25, 0.75], [0.875, 0.125]]  # the model's own output is left as it was
    three = torch.tensor([[0.125, 0.375, 0.5]])
    assert in_label_order(three, [2, 1, 0]).tolist() == [[0.5, 0.375, 0.125]]


def test_a_head_is_built_for_the_three_NLI_labels_or_the_two_of_a_fact_checking_dataset():
    assert head_id2label() == {0: "entailment", 1: "neutral", 2: "contradiction"}
    assert head_id2label(("E", "C")) == {0: "entailment", 1: "contradiction"}
    for wrong in (("E", "N"), ("E", "E", "C"), ("E",), ("E", "C", "X")):
        with pytest.raises(ModelError, match="must be E, N, C or E, C"):
            head_id2label(wrong)


HEADER = ("week", "opponent", "result")
TABLES = {
    f"2-{k}.html.csv": RelationalTable(
        f"2-{k}.html.csv",
        f"{1990 + k} season",
        HEADER,
        ((str(k), "bears", f"w {k + 20} - 3"), (str(k + 1), "lions", f"l 10 - {k + 14}")),
    )
    for k in range(4)
}


def tabfact_examples(labels: list[str], split: str = "train") -> pa.Table:
    """Statements about TABLES, one per label, round the tables in turn."""
    table_ids = [f"2-{i % len(TABLES)}.html.csv" for i in range(len(labels))]
    return pa.table(
        {
            "uid": [f"{split}:{t}:{i}" for i, t in enumerate(table_ids)],
            "table_id": table_ids,
            "hypothesis": [
                f"the bears {'win' if label == 'E' else 'lose'} in week {i % len(TABLES)}"
                for i, label in enumerate(labels)
            ],
            "label": labels,
        },
        schema=schemas.EXAMPLES,
    )


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-base") / "base", layers=1, max_positions=128)


def two_label_settings(base) -> TrainSettings:
    return TrainSettings(
        base=str(base), epochs=2, max_length=64, batch_size=4, learning_rate=1e-3, precision="fp32", seed=3
    )


def test_training_on_two_labels_writes_a_two_label_checkpoint_that_loads(tiny_base, tmp_path):
    train_examples, dev_examples = tabfact_examples(["E", "C"] * 5), tabfact_examples(["C", "E", "E"], "dev")
    args = (train_examples, TABLES, dev_examples, TABLES, "para", two_label_settings(tiny_base))
    meta = train(*args, tmp_path / "a", labels=("E", "C"))
    assert checkpoint_labels(tmp_path / "a") == {0: "entailment", 1: "contradiction"}
    assert meta["label_map"] == {"entailment": "E", "contradiction": "C"}
    assert json.loads((tmp_path / "a" / "tabprobe.json").read_text())["label_map"] == meta["label_map"]
    assert meta["train_examples"] == 10 and meta["dev_examples"] == 3 and 0 <= meta["dev_accuracy"] <= 100
    assert load_classifier(tmp_path / "a").order == [0, None, 1]
    train(*args, tmp_path / "b", labels=("E", "C"))  # seeded: the same weights again
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()


def test_training_examples_outside_the_heads_labels_are_an_error_naming_label_and_split(tiny_base, tmp_path):
    args = (tabfact_examples(["E", "C"]), TABLES, tabfact_examples(["E", "N", "N"], "dev"), TABLES, "para")
    with pytest.raises(ModelError, match=r"dev example dev:2-1\.html\.csv:1 \(and 1 more\) has label 'N'.*E, C"):
        train(*args, two_label_settings(tiny_base), tmp_path / "a", labels=("E", "C"))


def test_init_model_builds_an_untrained_two_label_head(tiny_base, tmp_path):
    stages.init_model(str(tiny_base), str(tmp_path / "init"), seed=1, labels=("E", "C"))
    assert checkpoint_labels(tmp_path / "init") == {0: "entailment", 1: "contradiction"}
    assert load_classifier(tmp_path / "init").order == [0, None, 1]


def test_a_two_label_model_from_a_three_label_one_keeps_its_entail_and_contradict_outputs(tiny_base, tmp_path):
    """train.base: {model: NAME} across datasets (config/trained_from.py): a TabFact head (E, C) started
    from an InfoTabS head (E, N, C) begins with that head's E and C outputs, not a random head, so it
    answers at first what the NLI model answers with N left out."""
    three = tmp_path / "three"
    stages.init_model(str(tiny_base), str(three), seed=5)  # a head as tabprobe makes one: E, N, C
    assert trained_head(three) == ("E", "N", "C") and trained_head(tiny_base) is None
    nli, tokenizer = new_classifier(str(three), seed=0)
    fact_checker, _ = new_classifier(str(three), seed=0, labels=("E", "C"))
    assert fact_checker.config.id2label == {0: "entailment", 1: "contradiction"}
    assert fact_checker.num_labels == fact_checker.config.num_labels == 2
    batch = tokenizer(
        ["the bears win in week 1", "the bears lose"], ["week 1 : bears 3 - 1", "x"], return_tensors="pt", padding=True
    )
    with torch.no_grad():
        nli.eval(), fact_checker.eval()
        assert torch.equal(fact_checker(**batch).logits, nli(**batch).logits[:, [0, 2]])
    # It trains and saves as any two-label head (the loss reads num_labels).
    fact_checker.train()
    out = fact_checker(**batch, labels=torch.tensor([0, 1]))
    out.loss.backward()
    assert fact_checker.classifier.weight.grad.shape == (2, fact_checker.config.hidden_size)
    fact_checker.save_pretrained(tmp_path / "saved", safe_serialization=True)
    tokenizer.save_pretrained(tmp_path / "saved")
    assert checkpoint_labels(tmp_path / "saved") == {0: "entailment", 1: "contradiction"}


def test_a_two_label_model_trained_from_a_three_label_one_records_the_head_it_narrowed(tiny_base, tmp_path):
    """The checkpoint's tabprobe.json and the report's "This run" table say which outputs it kept."""
    from dataclasses import replace

    from tabprobe.report.run import training_cells

    three = tmp_path / "three"
    stages.init_model(str(tiny_base), str(three), seed=5)
    args = (tabfact_examples(["E", "C"] * 5), TABLES, tabfact_examples(["C", "E", "E"], "dev"), TABLES, "para")
    settings = replace(two_label_settings(tiny_base), base=str(three))
    meta = train(*args, settings, tmp_path / "tf", labels=("E", "C"), base_model="nli")
    assert meta["base_model"]["name"] == "nli" and meta["base_model"]["head_narrowed_from"] == ["E", "N", "C"]
    assert checkpoint_labels(tmp_path / "tf") == {0: "entailment", 1: "contradiction"}
    training, _ = training_cells({"meta": meta})
    assert training.endswith("from nli's weights (its E, C outputs of E, N, C)")
    # A head of the same labels is kept whole and says nothing more (the default minilm-struct's case).
    same = train(
        *args, replace(settings, base=str(tmp_path / "tf")), tmp_path / "tf2", labels=("E", "C"), base_model="tf"
    )
    assert "head_narrowed_from" not in same["base_model"]
    assert training_cells({"meta": same})[0].endswith("from tf's weights")


def test_a_head_cannot_start_from_one_without_an_output_for_each_of_its_labels(tiny_base, tmp_path):
    """A TabFact checkpoint (E, C) as the base of an InfoTabS model (E, N, C): nothing to start N
    from, so it is refused by name rather than failing in transformers on the head's shape."""
    two = tmp_path / "two"
    stages.init_model(str(tiny_base), str(two), seed=5, labels=("E", "C"))
    with pytest.raises(
        ModelError, match=r"its trained head answers E, C, and a head for E, N, C has no output there to start N from"
    ):
        new_classifier(str(two), seed=0)
    # The same labels in another order are put in this head's order, not mixed up.
    three = tmp_path / "three"
    stages.init_model(str(tiny_base), str(three), seed=5)
    model, tokenizer = new_classifier(str(three), seed=0)
    reordered = tmp_path / "reordered"
    narrowed_head(model, [2, 1, 0], {0: "contradiction", 1: "neutral", 2: "entailment"})
    model.save_pretrained(reordered, safe_serialization=True)
    tokenizer.save_pretrained(reordered)
    assert trained_head(reordered) == ("C", "N", "E")
    back, _ = new_classifier(str(reordered), seed=0)
    assert back.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    batch = tokenizer(["the bears win"], ["week 1 : bears 3 - 1"], return_tensors="pt")
    with torch.no_grad():
        model.eval(), back.eval()
        assert torch.equal(back(**batch).logits, model(**batch).logits[:, [2, 1, 0]])
