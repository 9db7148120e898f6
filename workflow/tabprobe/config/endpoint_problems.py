"""Problems of served models (`endpoint:` blocks) the schema cannot see, found from the config and
the environment alone (the server itself is checked when the run starts: models.endpoint.check).
Each is a "config key a.b.c: ..." line, which checks.check locates in the files."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from tabprobe.models.endpoint import access
from tabprobe.models.endpoint.settings import EndpointError, missing_key_message, offline
from tabprobe.models.lm_prompts import template_problems


def _served_problems(name: str, model: Mapping[str, Any], environ: Mapping[str, str] | None) -> list[str]:
    block = model["endpoint"]
    at = f"config key models.{name}.endpoint"
    scoring, api = block.get("scoring", "generate"), block.get("api", "chat")
    problems = []
    if isinstance(block.get("template"), str):
        problems += [f"{at}.template: {p}" for p in template_problems(block["template"])]
    if scoring == "prompt_logprobs" and api == "chat":
        problems.append(
            f"{at}.scoring: prompt_logprobs reads the prompt's log-probabilities that the completions API echoes; "
            "set api: completions, or use first_token (the top log-probabilities of the reply's first token) with chat"
        )
    if block.get("calibrate") and scoring == "generate":
        problems.append(
            f"{at}.calibrate: contextual calibration divides label probabilities by a content-free prompt's, and "
            "generate gives none; use scoring first_token or prompt_logprobs, or set calibrate false"
        )
    if block.get("reasoning") and scoring != "generate":
        problems.append(
            f"{at}.reasoning: a reason-then-answer prompt is read by generate, not by {scoring} (which reads the "
            "first token or the verbalisers' likelihood); set scoring: generate or remove reasoning"
        )
    if model.get("premise") == "table":
        problems.append(
            f"config key models.{name}.premise: a served model is prompted with a rendered table; give a rendering "
            "(para, struct, markdown or hypothesis_only)"
        )
    if model.get("premise_selection"):
        # Selection fills a token budget, and tabprobe holds neither a served model's tokenizer nor its context.
        problems.append(
            f"config key models.{name}.premise_selection: a served model is shown its table whole (tabprobe cannot "
            "count its tokens to fill a budget); remove premise_selection, or probe the model in-process (causal:)"
        )
    variable = block.get("api_key_env")
    if isinstance(variable, str) and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable):
        # Not repeated: it may be the key itself, which must reach no message or log.
        problems.append(
            f"{at}.api_key_env: not the name of an environment variable (letters, digits and _, not starting with a "
            "digit); if it is the key itself, remove it from the config file, export it (export MY_API_KEY=...) "
            "and write that variable's name here"
        )
    elif isinstance(variable, str) and not offline(environ):
        if not (os.environ if environ is None else environ).get(variable):
            problems.append(f"{at}.api_key_env: {missing_key_message(name, variable)}")
    serve = block.get("serve") if isinstance(block.get("serve"), dict) else None
    if "{port}" in str(block.get("base_url", "")) and not serve:
        problems.append(
            f"{at}.base_url: {{port}} stands for the port a `serve:` command's server gets, and this model has no "
            "serve; give the server's port"
        )
    uses_unpacked = "{unpacked}" in f"{block.get('model', '')} {(serve or {}).get('command', '')}"
    if uses_unpacked and not (serve or {}).get("unpack"):
        problems.append(
            f"{at}.serve.unpack: {{unpacked}} stands for the folder a GGUF file named by serve.unpack is unpacked "
            "into, and this model names none; give serve.unpack or the folder itself"
        )
    if serve and isinstance(serve.get("command"), str):
        try:
            shlex.split(serve["command"])
        except ValueError as err:
            problems.append(f"{at}.serve.command: it cannot be split into arguments as a shell would ({err})")
    if serve:
        problems += _serve_access_problems(at, block, serve, offline(environ))
    return problems


def _serve_access_problems(at: str, block: Mapping[str, Any], serve: Mapping[str, Any], is_offline: bool) -> list[str]:
    """Whether the server a `serve:` command starts can be this user's alone (models.endpoint.access);
    offline, no server starts, so where it could run is not asked."""
    problems = [f"{at}.{p}" for p in access.command_problems(serve)]
    if block.get("api_key_env"):
        problems.append(
            f"{at}.api_key_env: a server the workflow starts gets a fresh key of the workflow's at each start; "
            "replace api_key_env with serve.key_env, naming the variable the engine reads its key from "
            f"({access.ENGINE_KEYS})"
        )
    host = urlsplit(str(block.get("base_url", ""))).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        problems.append(
            f"{at}.base_url: a server the workflow starts is asked on this machine's loopback address, never over "
            f"the network ({host or 'no host'} here); write http://127.0.0.1:{{port}}/v1 and have the engine listen "
            "there (vLLM and SGLang: --host 127.0.0.1)"
        )
    if not problems and not is_offline:
        try:
            access.choose(serve)
        except EndpointError as error:
            problems.append(f"{at}.serve: {error}")
    return problems


def endpoint_problems(config: Mapping[str, Any], models: Mapping[str, Any], environ=None) -> list[str]:
    """Problems of the served models of `models` (config's `models` block), and of experiments
    that would fine-tune one."""
    problems = []
    for name, model in models.items():
        if isinstance(model, dict) and isinstance(model.get("endpoint"), dict):
            problems += _served_problems(name, model, environ)
    for block, what in (
        ("inoculation", "inoculation fine-tunes"),
        ("controlled_variance", "the experiment fine-tunes"),
    ):
        chosen = config[block].get("model") if isinstance(config.get(block), dict) else None
        if isinstance(models.get(chosen), dict) and "endpoint" in models[chosen]:
            problems.append(
                f"config key {block}.model: {chosen} is a served model, whose weights are the server's; {what} a "
                "classifier (`train` or `checkpoint`)"
            )
    return problems
