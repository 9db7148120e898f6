"""A served model and the in-process causal LM with the same prompting keys get the same prompt:
the same text for the completions API, the same messages for the chat API (which the in-process
path writes out with the tokenizer's chat template, as a server does with the model's). Real
alpha1 examples, two k-shot examples chosen as select_shots chooses them, three renderings."""

from __future__ import annotations

import pytest
from tiny_causal import tiny_causal
from transformers import AutoTokenizer

from tabprobe.data.infotabs import ingest
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.data.tables import render, table_from_arrow
from tabprobe.models.endpoint.prompts import ServedPrompts, served_prompting
from tabprobe.models.lm_prompts import CHAT_DATE, PromptBuilder, Prompting
from tabprobe.models.shot_selection import choose_shots
from tabprobe.probes.generation import generate

# The prompting keys of config.smollm2.yaml, as a `causal:` block and as an `endpoint:` block give them.
KEYS = {
    "template": "Table:\n{premise}\n\nStatement: {hypothesis}\n{question}",
    "question": "Based on the table, is the statement true, false, or neither? Answer with one word.",
    "verbalisers": {"E": "True", "N": "Neither", "C": "False"},
    "shots": 2,
}


@pytest.fixture(scope="module")
def examples(shared_infotabs):
    ingested = ingest.ingest_split(shared_infotabs, "alpha1")
    tables = infotabs.load_tables(ingested.tables)
    probe, _ = generate("dummy_premise", ingested.examples.slice(0, 6), tables, seed=2022)
    original, _ = generate("original", ingested.examples.slice(0, 6), tables, seed=2022)
    shots = choose_shots(ingested.examples.slice(6, 60), ingested.tables, 2, seed=2022)
    return original.to_pylist() + probe.to_pylist(), shots


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return AutoTokenizer.from_pretrained(tiny_causal(tmp_path_factory.mktemp("lm") / "lm", "llama"))


def in_process(tokenizer, shots, rendering, chat_template):
    causal = {**KEYS, "checkpoint": "unused", "chat_template": chat_template}
    return PromptBuilder(tokenizer, Prompting.from_settings({**causal, "shots": shots}), rendering)


def served(shots, rendering, api):
    endpoint = {**KEYS, "base_url": "http://127.0.0.1:1/v1", "model": "m", "api": api}
    return ServedPrompts(served_prompting(endpoint, shots), rendering)


@pytest.mark.parametrize("rendering", ["markdown", "para", "hypothesis_only"])
def test_the_completions_api_gets_the_in_process_text(examples, tokenizer, rendering):
    records, shots = examples
    builder, prompts = in_process(tokenizer, shots, rendering, False), served(shots, rendering, "completions")
    for record in records:
        premise = render(table_from_arrow(record["table"]), rendering)
        text = builder.text(premise, record["hypothesis"])[0]
        assert prompts.of_example(record) == text
        assert text.count("Statement:") == 3  # the two shots and the test example
    assert prompts.content_free() == builder.text("" if rendering == "hypothesis_only" else "N/A", "N/A")[0]


@pytest.mark.parametrize("rendering", ["markdown", "struct"])
def test_the_chat_api_gets_the_in_process_messages(examples, tokenizer, rendering):
    records, shots = examples
    builder, prompts = in_process(tokenizer, shots, rendering, True), served(shots, rendering, "chat")
    for record in records:
        premise = render(table_from_arrow(record["table"]), rendering)
        messages = prompts.of_example(record)
        assert messages == builder.messages(premise, record["hypothesis"])
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
        assert [messages[1]["content"], messages[3]["content"]] == [KEYS["verbalisers"][s["label"]] for s in shots]
        # What the in-process model reads is these messages through the chat template.
        written = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, date_string=CHAT_DATE
        )
        assert builder.text(premise, record["hypothesis"])[0] == written
