"""How a causal LM's prompts are written: the template filled with an example's rendered table and
hypothesis, the k-shot examples before it (as plain text or through the tokenizer's chat
template), each label's verbaliser as the continuation that follows the prompt, and prompts cut
to fit max_length by dropping the end of the test example's table (tabprobe.models.causal scores them).
"""

from __future__ import annotations

import logging
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tabprobe import LABELS
from tabprobe.data.tables import render, table_from_arrow
from tabprobe.errors import ModelError

log = logging.getLogger(__name__)

# lm-evaluation-harness's prompt for NLI tasks (ANLI, RTE), with the table as the premise.
DEFAULT_TEMPLATE = "{premise}\nQuestion: {hypothesis} {question}\nAnswer:"
DEFAULT_QUESTION = "True, false, or neither?"
DEFAULT_VERBALISERS = {"E": "true", "N": "neither", "C": "false"}
TEMPLATE_FIELDS = ("premise", "hypothesis", "question")
# Contextual calibration's content-free input (Zhao et al., 2021): the label priors the model
# gives a prompt with nothing in it.
CONTENT_FREE = "N/A"
# Between two shots, and between the shots and the test prompt.
SHOT_SEPARATOR = "\n\n"
# The date a chat template that would write today's gets (Llama 3.1's own default date_string).
CHAT_DATE = "26 Jul 2024"


def template_problems(template: str) -> list[str]:
    """What is wrong with a prompt template: fields other than {premise}, {hypothesis} and
    {question}, no {hypothesis}, or a field given twice. Empty when it is usable."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as err:
        return [f"it is not a format string ({err}); write a literal brace as {{{{ or }}}}"]
    problems = [
        f"{{{name}}} is not a field (known: {', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)})"
        for name in dict.fromkeys(fields)
        if name not in TEMPLATE_FIELDS
    ]
    if "hypothesis" not in fields:
        problems.append("it has no {hypothesis}")
    problems += [f"{{{name}}} appears {fields.count(name)} times" for name in TEMPLATE_FIELDS if fields.count(name) > 1]
    return problems


@dataclass(frozen=True)
class Prompting:
    """How examples become prompts and labels become continuations (the config's `causal:` block)."""

    template: str = DEFAULT_TEMPLATE
    question: str = DEFAULT_QUESTION
    verbalisers: Mapping[str, str] = None  # E / N / C -> text
    shots: tuple = ()  # ({"table": ..., "hypothesis": ..., "label": ...}, ...), in prompt order
    chat_template: bool = False
    calibrate: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping) -> Prompting:
        return cls(
            template=settings.get("template") or DEFAULT_TEMPLATE,
            question=settings.get("question", DEFAULT_QUESTION),
            verbalisers=dict(settings.get("verbalisers") or DEFAULT_VERBALISERS),
            shots=tuple(settings.get("shots") or ()),
            chat_template=bool(settings.get("chat_template")),
            calibrate=bool(settings.get("calibrate")),
        )

    def fill(self, premise: str, hypothesis: str) -> tuple[str, tuple[int, int]]:
        """One example's prompt text and the span of its premise in it."""
        marker = "\x00"  # never in a rendered table or a hypothesis (dataset text is printable)
        text = self.template.format(premise=marker, hypothesis=hypothesis, question=self.question).strip()
        at = text.find(marker)
        if at < 0:  # a template without {premise}: a hypothesis-only prompt
            return text, (len(text), len(text))
        # An empty premise (the hypothesis_only rendering) leaves no blank line at the start.
        filled = text.replace(marker, premise)
        kept = filled.lstrip()
        start = max(0, at - (len(filled) - len(kept)))
        return kept.rstrip(), (start, start + len(premise))


def continuation_text(prompt: str, verbaliser: str) -> str:
    """What follows the prompt for a label: the verbaliser after one space, unless the prompt
    already ends in whitespace (a chat template's assistant turn ends in a newline)."""
    return verbaliser if not prompt or prompt[-1].isspace() else " " + verbaliser


def verbaliser_ids(tokenizer, prompting: Prompting, prompt_end: str) -> list[list[int]]:
    """The token ids of each label's continuation, in E, N, C order, as they follow a prompt
    ending in `prompt_end`: the tokens of prompt_end + continuation past those of prompt_end
    alone. Raises ModelError (naming the config key) when a verbaliser has no tokens of its own or
    two labels' continuations are the same tokens."""
    base = tokenizer(prompt_end, add_special_tokens=False)["input_ids"]
    ids = {}
    for label in LABELS:
        text = prompting.verbalisers[label]
        whole = tokenizer(prompt_end + continuation_text(prompt_end, text), add_special_tokens=False)["input_ids"]
        # A merge across the boundary would change the prompt's own tokens: then take the
        # continuation's tokens alone.
        own = (
            whole[len(base) :]
            if whole[: len(base)] == base
            else tokenizer(continuation_text(prompt_end, text), add_special_tokens=False)["input_ids"]
        )
        if not own:
            raise ModelError(f"config key causal.verbalisers.{label}: {text!r} has no tokens of its own")
        ids[label] = own
    for i, first in enumerate(LABELS):
        for second in LABELS[i + 1 :]:
            if ids[first] == ids[second]:
                raise ModelError(
                    f"config key causal.verbalisers: {first} ({prompting.verbalisers[first]!r}) and {second} "
                    f"({prompting.verbalisers[second]!r}) are the same tokens {ids[first]} for this tokenizer, "
                    "so the model could never tell them apart; give distinct verbalisers"
                )
    unknown = tokenizer.unk_token_id
    for label in LABELS:
        if unknown is not None and unknown in ids[label]:
            raise ModelError(
                f"config key causal.verbalisers.{label}: {prompting.verbalisers[label]!r} contains a token this "
                "tokenizer does not know (it reads as unknown); give a verbaliser in its vocabulary"
            )
    return [ids[label] for label in LABELS]


NO_CHAT_TEMPLATE = "set `causal.chat_template: false` for this model in config (its prompts are then plain text)"


def chat_template_origin(checkpoint: str | Path | None) -> str:
    """The file a checkpoint's chat template comes from, as transformers reads it, for messages: a
    GGUF file's own metadata; in a checkpoint folder chat_template.jinja, else the templates in
    additional_chat_templates/, else tokenizer_config.json."""
    if checkpoint is None:
        return "this checkpoint's tokenizer"
    path = Path(checkpoint)
    if path.is_file():
        return f"{path} (its tokenizer.chat_template)"
    for candidate in (path / "chat_template.jinja", path / "additional_chat_templates"):
        if candidate.exists():
            return str(candidate)
    return f"{path / 'tokenizer_config.json'} (its chat_template)"


def _chat(tokenizer, messages: list[dict], origin: str) -> str:
    from jinja2 import TemplateError
    from jinja2.exceptions import SecurityError

    try:
        # Llama 3.x's templates write today's date into the system turn unless given `date_string`:
        # they get a fixed one, as the same config must give the same prompts on any day (and a run
        # across midnight must not give `original` and a probe different prompts).
        return tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, date_string=CHAT_DATE
        )
    except SecurityError as err:  # transformers renders templates in Jinja's sandbox, which held
        raise ModelError(
            f"config key causal.chat_template: the chat template of {origin} does something Jinja's sandbox "
            f"refuses (SecurityError: {err}), so no prompt can be written with it; {NO_CHAT_TEMPLATE}, or give "
            "the checkpoint a chat template that only lays out its messages"
        ) from None
    except TemplateError as err:  # a syntax error, or the template's own raise_exception(...)
        raise ModelError(
            f"config key causal.chat_template: the chat template of {origin} fails on tabprobe's prompts "
            f"({type(err).__name__}: {err}); {NO_CHAT_TEMPLATE}, or mend the template"
        ) from None


def _check_chat_template(tokenizer, origin: str) -> None:
    template = getattr(tokenizer, "chat_template", None)
    if not template:
        raise ModelError(
            f"config key causal.chat_template: this checkpoint's tokenizer has no chat template (none in "
            f"{origin}); set it false"
        )
    if not isinstance(template, str):  # several named templates: transformers picks "default"
        template = str(template)
    if "strftime_now" in template and "date_string" not in template:
        raise ModelError(
            "config key causal.chat_template: this checkpoint's chat template writes today's date into every "
            "prompt (strftime_now), so its numbers would change from day to day; set chat_template false, or "
            "save the tokenizer with a chat template that takes the date as `date_string`"
        )


def _leading_special_ids(tokenizer) -> list[int]:
    """The special tokens the tokenizer puts before a text (a BOS), without any it puts after it
    (an EOS, from `add_eos_token`): a prompt must end in its own last token, which the
    verbalisers' tokens follow."""
    bare = tokenizer("Answer", add_special_tokens=False)["input_ids"]
    whole = tokenizer("Answer")["input_ids"]
    for start in range(len(whole) - len(bare) + 1):
        if whole[start : start + len(bare)] == bare:
            return whole[:start]
    return []


def shot_turns(prompting: Prompting, shot_tables: list, rendering: str) -> list[tuple[str, str]]:
    """(prompt, answer) of each shot: its table rendered, filled into the template, and its label's
    verbaliser."""
    return [
        (prompting.fill(render(table, rendering), shot["hypothesis"])[0], prompting.verbalisers[shot["label"]])
        for shot, table in zip(prompting.shots, shot_tables)
    ]


def shot_prefix(turns: list[tuple[str, str]]) -> str:
    """The text of the shots before a plain (not chat) prompt: each prompt followed by its answer."""
    return "".join(text + continuation_text(text, answer) + SHOT_SEPARATOR for text, answer in turns)


def chat_messages(turns: list[tuple[str, str]], test: str) -> list[dict]:
    """A chat prompt's turns: each shot a user turn answered by its verbaliser, then the test example."""
    messages = []
    for text, answer in turns:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
    return messages + [{"role": "user", "content": test}]


class PromptBuilder:
    """Prompts for one model: shots first, then the test example, as plain text or through the
    tokenizer's chat template (each shot a user turn answered by its verbaliser). `checkpoint`
    (its folder or GGUF file) names where a chat template came from when it fails."""

    def __init__(
        self,
        tokenizer,
        prompting: Prompting,
        rendering: str,
        max_tokens: int | None = None,
        checkpoint: str | Path | None = None,
    ):
        self.template_origin = chat_template_origin(checkpoint)
        if prompting.chat_template:
            _check_chat_template(tokenizer, self.template_origin)
        self.tokenizer = tokenizer
        self.prompting = prompting
        self.rendering = rendering
        # A chat template writes its own special tokens into the text.
        self.leading_ids = [] if prompting.chat_template else _leading_special_ids(tokenizer)
        self.shot_tables = [table_from_arrow(shot["table"]) for shot in prompting.shots]
        self.shot_rows_dropped = 0
        self._fill_shots()
        # The shots take at most half of the prompt, so that the test example's table, the one
        # the probes change, keeps the other half: the longest shot table loses its last row
        # until they fit. Done once, so every example of every probe sees the same shots.
        while max_tokens and self.shot_tokens() > max_tokens // 2 and any(t.rows for t in self.shot_tables):
            longest = max(range(len(self.shot_tables)), key=lambda i: (len(self.shot_tables[i].rows), -i))
            self.shot_tables[longest] = self.shot_tables[longest].with_rows(self.shot_tables[longest].rows[:-1])
            self.shot_rows_dropped += 1
            self._fill_shots()
        if self.shot_rows_dropped:
            log.info("the shots' tables lost %d rows to fit half of max_length", self.shot_rows_dropped)

    def _fill_shots(self) -> None:
        self.shot_turns = shot_turns(self.prompting, self.shot_tables, self.rendering)
        # Plain prompts: the shots' text is the same before every test example.
        self.shot_prefix = shot_prefix(self.shot_turns)

    def shot_tokens(self) -> int:
        return len(self.tokenizer(self.shot_prefix, add_special_tokens=False)["input_ids"])

    @property
    def end(self) -> str:
        """How every prompt ends (the same for all), which the verbalisers' tokens follow."""
        return self.text(CONTENT_FREE, CONTENT_FREE)[0][-32:]

    def text(self, premise: str, hypothesis: str) -> tuple[str, tuple[int, int]]:
        """A whole prompt and the span of the test example's premise in it."""
        test, (start, stop) = self.prompting.fill(premise, hypothesis)
        if not self.prompting.chat_template:
            offset = len(self.shot_prefix)
            return self.shot_prefix + test, (offset + start, offset + stop)
        whole = _chat(self.tokenizer, chat_messages(self.shot_turns, test), self.template_origin)
        offset = whole.rfind(test)
        if offset < 0:
            raise ModelError(
                "config key causal.chat_template: the tokenizer's chat template changes the prompt's text, so "
                "the table's place in it cannot be found; set chat_template false"
            )
        return whole, (offset + start, offset + stop)

    def messages(self, premise: str, hypothesis: str) -> list[dict]:
        """The chat turns of a prompt (the shots, then the test example), before the chat template
        writes them out: what a served model's chat API is sent (tabprobe.models.endpoint)."""
        return chat_messages(self.shot_turns, self.prompting.fill(premise, hypothesis)[0])

    def encode(self, premise: str, hypothesis: str, max_tokens: int) -> tuple[list[int], bool]:
        """Token ids of a prompt, at most `max_tokens` long: over-long prompts lose tokens from the
        end of the test example's table. (ids, whether it was cut)."""
        text, (start, stop) = self.text(premise, hypothesis)
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids = self.leading_ids + encoded["input_ids"]
        offsets = [(0, 0)] * len(self.leading_ids) + encoded["offset_mapping"]
        excess = len(ids) - max_tokens
        if excess <= 0:
            return ids, False
        in_table = [i for i, (a, b) in enumerate(offsets) if b > a and a >= start and b <= stop]
        if len(in_table) < excess:
            raise ModelError(
                f"config key max_length: {max_tokens} tokens (max_length less the longest verbaliser) do not hold "
                "this prompt even without its table "
                f"({len(ids) - len(in_table)} tokens of shots, question and hypothesis: {hypothesis!r}); raise "
                "max_length or use fewer shots"
            )
        dropped = set(in_table[len(in_table) - excess :])
        return [t for i, t in enumerate(ids) if i not in dropped], True
