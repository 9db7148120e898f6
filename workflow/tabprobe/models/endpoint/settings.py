"""A served model's settings: the config's `endpoint:` block (its keys and defaults are the
schema's, workflow/schemas/config.schema.yaml), and the API key, which config names only by the
environment variable that holds it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from tabprobe.errors import TabprobeError

SCORINGS = ("generate", "first_token", "prompt_logprobs")
APIS = ("chat", "completions")
# What a request carries as its key when the server needs none: the openai client refuses to
# start without one, and servers that check no key ignore it.
NO_KEY = "EMPTY"
# Set to 1 to answer from the cache alone: no request leaves the machine, and the check before the
# run does not look for the server (a re-run with the server stopped).
OFFLINE = "TABPROBE_ENDPOINT_OFFLINE"
# The reason-then-answer prompt's instruction when `reasoning` gives none: the answer on a line of
# its own, where the parser looks first ("Answer: X").
REASONING_INSTRUCTION = (
    "Think it through step by step, then end with a last line 'Answer: {E}', 'Answer: {N}' or 'Answer: {C}'."
)


class EndpointError(TabprobeError):
    """A served model that cannot be asked as configured: no key, no server, no such model, a
    scoring the server cannot do, a request that failed for good, or the request budget spent."""


@dataclass(frozen=True)
class Endpoint:
    """How to reach a served model and what to ask it (the keys of config's `endpoint:` block
    other than the prompting ones, which lm_prompts.Prompting reads)."""

    base_url: str
    model: str
    api: str = "chat"
    api_key_env: str | None = None
    scoring: str = "generate"
    concurrency: int = 4
    requests_per_minute: float | None = None
    timeout_s: float = 60.0
    max_retries: int = 6
    max_requests: int | None = None
    max_tokens: int = 16
    top_logprobs: int = 20
    seed: int | None = 0
    reasoning: Mapping[str, Any] | None = None
    cache: str = "resources/endpoint_cache"
    serve: Mapping[str, Any] | None = None

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Endpoint:
        # null is a value of its own (no seed sent, no rate limit, no budget), not the default.
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in settings.items() if k in known})

    def api_key(self, name: str, environ: Mapping[str, str] | None = None) -> str:
        """The key from the variable `api_key_env` names (NO_KEY where it names none). Raises
        EndpointError, naming the model (`name`, as config calls it) and the variable but never a
        value, when it is not set."""
        environ = os.environ if environ is None else environ
        if not self.api_key_env:
            return NO_KEY
        key = environ.get(self.api_key_env)
        if not key:
            raise EndpointError(missing_key_message(name, self.api_key_env))
        return key

    @property
    def answer_tokens(self) -> int:
        """The tokens a generated answer may take: the reasoning prompt's budget where there is one."""
        if self.scoring != "generate":
            return 1
        return int((self.reasoning or {}).get("max_tokens") or self.max_tokens)


def reasoning_instruction(reasoning: Mapping[str, Any] | None, verbalisers: Mapping[str, str]) -> str | None:
    """What a reason-then-answer prompt (`reasoning`) asks after the question, its {E}, {N} and {C}
    the verbalisers; None without one."""
    if not reasoning:
        return None
    return (reasoning.get("instruction") or REASONING_INSTRUCTION).format(**verbalisers)


def missing_key_message(model: str, variable: str) -> str:
    return (
        f"served model {model!r}: the environment variable {variable} (endpoint.api_key_env) is not set, so the "
        f"server's API key is unknown; export it before running (export {variable}=...), or remove api_key_env "
        "for a server that takes no key"
    )


def offline(environ: Mapping[str, str] | None = None) -> bool:
    return (os.environ if environ is None else environ).get(OFFLINE, "0") not in ("", "0")


def redact(text: str, key: str | None) -> str:
    """`text` with the API key blotted out, for messages built from what a server or a library said
    (a server may echo a request's headers in an error)."""
    if key and key != NO_KEY and len(key) >= 4:
        return text.replace(key, "<api key>")
    return text
