"""A served model's prompts, written by the code that writes an in-process causal LM's
(tabprobe.models.lm_prompts): the same template, question, verbalisers, shots and premise
rendering give the same text for the completions API and the same messages for the chat API
(whose server then applies the model's chat template, as the in-process path applies the
tokenizer's). What a served model does not get: the cut of an over-long table to max_length,
which needs the model's tokenizer; a prompt too long for the server fails its request with the
server's message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tabprobe.data.tables import render, table_from_arrow
from tabprobe.models.endpoint.settings import reasoning_instruction
from tabprobe.models.lm_prompts import CONTENT_FREE, Prompting, chat_messages, shot_prefix, shot_turns

# The keys of the `endpoint:` block that say how examples become prompts, as `causal:` has them.
PROMPTING_KEYS = ("template", "question", "verbalisers", "calibrate")

Prompt = str | list[dict]


def served_prompting(settings: Mapping[str, Any], shots: list[dict]) -> Prompting:
    """The `endpoint:` block's prompting, with its k-shot examples (select_shots): a chat API is
    prompted as a causal LM with `chat_template: true`, the completions API as one without. A
    reason-then-answer prompt (`reasoning`) asks for it after the question."""
    prompting = Prompting.from_settings(
        {
            **{k: settings[k] for k in PROMPTING_KEYS if k in settings},
            "shots": shots,
            "chat_template": settings.get("api", "chat") == "chat",
        }
    )
    instruction = reasoning_instruction(settings.get("reasoning"), prompting.verbalisers)
    if instruction:
        prompting = replace(prompting, question=f"{prompting.question} {instruction}".strip())
    return prompting


class ServedPrompts:
    """The prompts of one served model: shots first, then the test example."""

    def __init__(self, prompting: Prompting, rendering: str):
        self.prompting = prompting
        self.rendering = rendering
        self.turns = shot_turns(prompting, [table_from_arrow(s["table"]) for s in prompting.shots], rendering)
        self.prefix = shot_prefix(self.turns)

    @property
    def chat(self) -> bool:
        return self.prompting.chat_template

    def prompt(self, premise: str, hypothesis: str) -> Prompt:
        """The messages (chat) or the text (completions) of one example's prompt."""
        test = self.prompting.fill(premise, hypothesis)[0]
        return chat_messages(self.turns, test) if self.chat else self.prefix + test

    def of_example(self, record: Mapping[str, Any]) -> Prompt:
        """The prompt of a probe example (a row of its probe file: the table it sees, its hypothesis)."""
        return self.prompt(render(table_from_arrow(record["table"]), self.rendering), record["hypothesis"])

    def content_free(self) -> Prompt:
        """Contextual calibration's prompt, shaped like every other: "N/A" for the hypothesis and for
        the table, which a hypothesis-only prompt does not have."""
        return self.prompt("" if self.rendering == "hypothesis_only" else CONTENT_FREE, CONTENT_FREE)
