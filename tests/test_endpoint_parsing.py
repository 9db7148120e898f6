"""The answer parser of served models (scoring generate): one example per rule of
tabprobe.models.endpoint.parsing, the unparsed outcomes, and a reasoning model's thinking kept out
of the parse."""

from __future__ import annotations

import pytest

from tabprobe.models.endpoint.parsing import parse_answer, split_thinking

VERBALISERS = {"E": "true", "N": "neither", "C": "false"}


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        # 1. "Answer: X", the last one
        ("The table lists 1950.\nAnswer: false", "C"),
        ("Answer: true ... on second thought, Answer: Neither.", "N"),
        ("The answer is true.", "E"),
        ("answer:\n**False**", "C"),
        # 2. the whole answer is a label's word
        ("True", "E"),
        ("  neither. ", "N"),
        ('"false"', "C"),
        ("**Entailment**", "E"),
        ("contradiction", "C"),
        ("Neutral", "N"),
        # 3. the first words
        ("True. The table says he was born in 1950.", "E"),
        ("False, because the table lists rock.", "C"),
        ("entailed by the second row", "E"),
        # 4. the last line
        ("Let me look at the rows.\nThe born row gives 1950.\nfalse", "C"),
        # 5. exactly one label's word anywhere
        ("The statement is false given the table.", "C"),
        ("I would say it is true", "E"),
    ],
)
def test_each_rule_finds_its_label(answer, label):
    assert parse_answer(answer, VERBALISERS) == label


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I cannot tell from this table.",
        "It could be true or false.",  # two labels' words: ambiguous
        "This is not true.",  # a negated label word is no answer
        "Answer: maybe",
        "untrue",  # a label's word only inside another word
    ],
)
def test_an_answer_without_a_clear_label_is_unparsed_never_neutral(answer):
    assert parse_answer(answer, VERBALISERS) is None


def test_the_config_verbalisers_are_label_words_too():
    verbalisers = {"E": "yes", "N": "maybe", "C": "no"}
    assert parse_answer("Maybe.", verbalisers) == "N"
    assert parse_answer("Answer: yes", verbalisers) == "E"
    # The usual names still count.
    assert parse_answer("contradiction", verbalisers) == "C"


def test_a_multi_word_verbaliser_is_matched_whole():
    verbalisers = {"E": "it is true", "N": "not enough info", "C": "it is false"}
    assert parse_answer("Not enough info.", verbalisers) == "N"
    assert parse_answer("Answer: it is false", verbalisers) == "C"


def test_thinking_is_split_off_and_kept():
    answer, thinking = split_thinking("<think>The row says 1950, so not 1960.</think>\nFalse")
    assert (answer, thinking) == ("False", "The row says 1950, so not 1960.")
    assert parse_answer(answer, VERBALISERS) == "C"


def test_a_label_word_inside_the_thinking_does_not_count():
    answer, thinking = split_thinking("<think>Is it true? Maybe neither.</think>Answer: false")
    assert parse_answer(answer, VERBALISERS) == "C"
    assert "true" in thinking
    # Thinking that never ends leaves no answer: unparsed, and the thinking kept.
    answer, thinking = split_thinking("<think>true... or false")
    assert answer == "" and thinking == "true... or false"
    assert parse_answer(answer, VERBALISERS) is None


def test_a_closing_tag_alone_closes_thinking_the_prompt_opened():
    answer, thinking = split_thinking("the rows say so</think>\n\nTrue")
    assert (answer, thinking) == ("True", "the rows say so")


def test_a_servers_reasoning_field_is_kept_beside_the_text():
    answer, thinking = split_thinking("neither", reasoning="The table has no such row.")
    assert answer == "neither" and thinking == "The table has no such row."
