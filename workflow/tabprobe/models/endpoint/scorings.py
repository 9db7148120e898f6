"""The three scorings of a served model: what each asks of the server, and how its answers become
E/N/C probabilities. Each checks that an answer holds what it asked for: a server may ignore a
parameter without an error (`transformers serve` ignores `logprobs`), and reading an answer
without log-probabilities as one with them would score every example alike.

- generate: the answer generated at temperature 0 (with the seed), parsed (tabprobe.models.endpoint.parsing);
  probability 1 on the parsed label, and an unparsed answer is its own outcome.
- first_token: one token generated with its top `top_logprobs` alternatives; a label's score is the
  probability of the longest listed token that begins its verbaliser as the answer would begin
  (for the completions API after the prompt's space, " true", as the in-process path scores it;
  for chat at the start of the reply, "True" or " True"), renormalised over the three labels. A label with no such token listed gets
  none, and is counted; a token that is two labels' first token counts for neither.
- prompt_logprobs: each label's log-likelihood as the in-process causal path computes it, the sum of
  the log-probabilities of the verbaliser's tokens after the prompt, read from the prompt's
  log-probabilities as the completions API returns them with `echo` (three requests per example,
  one per label; vLLM, llama.cpp's servers and OpenAI's legacy models give them).
The two log-probability scorings take contextual calibration (`calibrate`) as the causal path does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabprobe import LABELS
from tabprobe.models.endpoint.parsing import parse_answer, split_thinking
from tabprobe.models.endpoint.prompts import Prompt
from tabprobe.models.endpoint.settings import Endpoint, EndpointError
from tabprobe.models.lm_prompts import Prompting, continuation_text

UNSUPPORTED = "the server returned no {what} for a {scoring} request ({where}), so it cannot score {scoring}; {fix}"


@dataclass
class Outcome:
    """What one example's answers say: label scores (log-probabilities, E, N, C; None when the
    answer gave no label), and what is kept of the answer."""

    scores: np.ndarray | None
    answer: str | None = None
    thinking: str | None = None
    missing: list[str] = field(default_factory=list)  # first_token: labels absent from the top-k


def base_body(endpoint: Endpoint, prompt: Prompt, max_tokens: int) -> dict[str, Any]:
    """A request's body: the model, the prompt as its API takes it, greedy decoding, the seed."""
    body = {"model": endpoint.model, "max_tokens": max_tokens, "temperature": 0}
    body["messages" if isinstance(prompt, list) else "prompt"] = prompt
    if endpoint.seed is not None:
        body["seed"] = endpoint.seed
    return body


def requests_for(endpoint: Endpoint, prompting: Prompting, prompt: Prompt) -> list[dict[str, Any]]:
    """The request bodies one example's prompt needs under the model's scoring."""
    if endpoint.scoring == "generate":
        return [base_body(endpoint, prompt, endpoint.answer_tokens)]
    if endpoint.scoring == "first_token":
        body = base_body(endpoint, prompt, 1)
        if endpoint.api == "chat":
            body.update(logprobs=True, top_logprobs=endpoint.top_logprobs)
        else:
            body.update(logprobs=endpoint.top_logprobs)
        return [body]
    # prompt_logprobs: the prompt and one label's continuation, echoed with its log-probabilities;
    # one token is generated (some servers refuse none) and not read.
    bodies = []
    for label in LABELS:
        whole = prompt + continuation_text(prompt, prompting.verbalisers[label])
        bodies.append({**base_body(endpoint, whole, 1), "echo": True, "logprobs": 1})
    return bodies


def _choice(response: Mapping[str, Any]) -> Mapping[str, Any]:
    choices = response.get("choices") or []
    if not choices:
        raise EndpointError(f"the server's answer has no choices: {str(response)[:300]}")
    return choices[0]


def generated_text(response: Mapping[str, Any]) -> tuple[str, str | None]:
    """(the answer's text, the reasoning a server sent apart from it, or None)."""
    choice = _choice(response)
    message = choice.get("message")
    if message is not None:
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        return message.get("content") or "", reasoning
    return choice.get("text") or "", None


def top_tokens(response: Mapping[str, Any], where: str) -> dict[str, float]:
    """token -> log-probability of the first generated token's listed alternatives (both APIs'
    shapes). Raises EndpointError when the answer holds none."""
    logprobs = _choice(response).get("logprobs") or {}
    found: dict[str, float] = {}
    if logprobs.get("content"):  # chat: a list of tokens, each with its alternatives
        first = logprobs["content"][0]
        for alt in first.get("top_logprobs") or []:
            found[alt["token"]] = max(found.get(alt["token"], -math.inf), float(alt["logprob"]))
        if not found and first.get("token") is not None:
            found[first["token"]] = float(first["logprob"])
    elif logprobs.get("top_logprobs"):  # completions: one {token: logprob} per generated token
        found = {token: float(lp) for token, lp in (logprobs["top_logprobs"][0] or {}).items()}
    if not found:
        raise EndpointError(
            UNSUPPORTED.format(
                what="log-probabilities (logprobs / top_logprobs)",
                scoring="first_token",
                where=where,
                fix="use scoring: generate, which reads the answer's text",
            )
        )
    return found


def first_token_scores(
    tokens: Mapping[str, float], verbalisers: Mapping[str, str], prompt: Prompt
) -> tuple[np.ndarray | None, list[str]]:
    """Each label's log-probability from the listed first tokens (None when no label has any), and
    the labels that had none. A label's token is the longest listed one that begins its answer,
    which for the model's own tokenizer is the answer's first token (a shorter prefix, "t", begins
    other words too and does not count): for the completions API the continuation as the in-process
    path scores it, its space included (" true"); for chat, where servers write a reply's first
    token with or without a space, either ("True" and " True" both count)."""
    chat = not isinstance(prompt, str)

    def shape(text: str) -> str:
        return text.lstrip() if chat else text

    starts = {lab: shape(verbalisers[lab] if chat else continuation_text(prompt, verbalisers[lab])) for lab in LABELS}
    chosen: dict[str, list[str]] = {}
    for label in LABELS:
        fits = [t for t in tokens if shape(t).strip() and starts[label].startswith(shape(t))]
        longest = max((len(shape(t)) for t in fits), default=0)
        chosen[label] = [t for t in fits if len(shape(t)) == longest]
    # A token that is two labels' first token (verbalisers sharing their start) tells them apart from nothing.
    shared = {t for a in LABELS for b in LABELS if a < b for t in set(chosen[a]) & set(chosen[b])}
    mass = {label: sum(math.exp(tokens[t]) for t in chosen[label] if t not in shared) for label in LABELS}
    missing = [lab for lab in LABELS if mass[lab] == 0.0]
    if len(missing) == len(LABELS):
        return None, missing
    return np.array([math.log(mass[lab]) if mass[lab] > 0 else -math.inf for lab in LABELS]), missing


def continuation_logprob(response: Mapping[str, Any], prompt: str, continuation: str, where: str) -> float:
    """The log-probability of `continuation` after `prompt`: the sum over the echoed tokens that
    start at or after the prompt's end and before the continuation's (the one generated after it
    left out). Raises EndpointError when the answer echoes no prompt log-probabilities."""
    logprobs = _choice(response).get("logprobs") or {}
    tokens, values = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
    offsets = logprobs.get("text_offset") or []
    if not tokens or len(values) != len(tokens) or len(offsets) != len(tokens):
        raise EndpointError(
            UNSUPPORTED.format(
                what="prompt log-probabilities (echo with logprobs)",
                scoring="prompt_logprobs",
                where=where,
                fix="use scoring: first_token where the server gives the top log-probabilities of a generated "
                "token, or generate",
            )
        )
    start, stop = len(prompt), len(prompt) + len(continuation)
    total, counted = 0.0, 0
    for offset, value in zip(offsets, values):
        if start <= offset < stop:
            if value is None:
                raise EndpointError(f"the server gave no log-probability for a token of the answer ({where})")
            total += float(value)
            counted += 1
    if not counted:
        raise EndpointError(
            f"the server's echoed tokens do not reach past the prompt ({where}): its text offsets do not fit the "
            "prompt sent; use scoring: first_token or generate"
        )
    return total


def outcome_of(
    endpoint: Endpoint, prompting: Prompting, prompt: Prompt, responses: Sequence[Mapping[str, Any]], where: str
) -> Outcome:
    """One example's outcome from the answers to its requests (requests_for)."""
    if endpoint.scoring == "generate":
        text, reasoning = generated_text(responses[0])
        answer, thinking = split_thinking(text, reasoning)
        label = parse_answer(answer, prompting.verbalisers)
        scores = None if label is None else np.array([0.0 if lab == label else -np.inf for lab in LABELS])
        return Outcome(scores, text, thinking)
    if endpoint.scoring == "first_token":
        tokens = top_tokens(responses[0], where)
        scores, missing = first_token_scores(tokens, prompting.verbalisers, prompt)
        return Outcome(scores, generated_text(responses[0])[0], missing=missing)
    scores = np.array(
        [
            continuation_logprob(response, prompt, continuation_text(prompt, prompting.verbalisers[label]), where)
            for label, response in zip(LABELS, responses)
        ]
    )
    return Outcome(scores)
