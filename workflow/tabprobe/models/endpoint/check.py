"""The checks of a served model before any of its jobs: the key's variable is set, a server answers
at base_url, it serves the model by that name (its /models list), and a probe request shows that
it can do the model's scoring (a server may ignore `logprobs` without an error). Each failure says
which model, which key and what to do. The workflow runs them before planning (for a model with a
`serve:` command, whose server is not up yet, the first job runs them once it has started it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from tabprobe.errors import did_you_mean
from tabprobe.models.endpoint.prompts import ServedPrompts, served_prompting
from tabprobe.models.endpoint.reach import NotOurs, Reach
from tabprobe.models.endpoint.scorings import continuation_logprob, outcome_of, requests_for
from tabprobe.models.endpoint.settings import Endpoint, EndpointError, offline, redact
from tabprobe.models.lm_prompts import Prompting

log = logging.getLogger(__name__)

# The checks' own patience: a server that does not answer a listing within this long is not up.
CHECK_TIMEOUT_S = 15.0
# How far a server's echoed log-probability of a token may be from the one it gives it as generated
# (two code paths of one engine: float rounding, batched kernels).
ECHO_TOLERANCE = 0.01
# What to try, in order, when a scoring is refused: the best one the server can do is named.
FALLBACKS = {"prompt_logprobs": ("first_token", "generate"), "first_token": ("generate",)}


def _client(endpoint: Endpoint, reach: Reach, key: str):
    from openai import OpenAI

    timeout = min(endpoint.timeout_s, CHECK_TIMEOUT_S)
    return OpenAI(
        base_url=reach.base_url, api_key=key, timeout=timeout, max_retries=1, http_client=reach.sync_client(timeout)
    )


def listed_models(name: str, endpoint: Endpoint, reach: Reach, key: str) -> list[str] | None:
    """The model names the server lists (None where it has no /models). Raises EndpointError when
    no server answers or it refuses the key."""
    import openai

    where = f"served model {name!r}: "
    base_url = reach.base_url
    try:
        return [m.id for m in _client(endpoint, reach, key).models.list()]
    except NotOurs as error:
        raise EndpointError(f"{where}{error}") from None
    except openai.NotFoundError:
        log.warning("%sthe server at %s has no /models list; the model's name is checked by a request", where, base_url)
        return None
    except openai.AuthenticationError as error:
        variable = endpoint.api_key_env
        raise EndpointError(
            redact(
                f"{where}the server at {base_url} refused the request's key ({error.status_code}): "
                + (
                    f"check the value of the environment variable {variable} (endpoint.api_key_env)"
                    if variable
                    else "it wants one; set endpoint.api_key_env to the name of the environment variable that holds it"
                ),
                key,
            )
        ) from None
    except openai.APIStatusError as error:
        raise EndpointError(
            redact(f"{where}the server at {base_url} answered {error.status_code} to GET /models: {error.message}", key)
        ) from None
    except openai.APIConnectionError as error:
        cause = error.__cause__ or error
        raise EndpointError(
            f"{where}no server answers at {base_url} (endpoint.base_url: {type(cause).__name__}: {cause}). Start the "
            "server (or give a `serve:` command that the workflow starts), or fix base_url; to score from the "
            "response cache alone, with no server, run with TABPROBE_ENDPOINT_OFFLINE=1"
        ) from None


def echo_problem(client, endpoint: Endpoint, prompt: str) -> str | None:
    """Whether the server's echoed prompt log-probabilities are where they belong: the log-probability
    it gives a token it generates after `prompt` must be the one it echoes for that token as the end
    of a prompt. None when they agree (or a token boundary makes them incomparable), else the problem."""
    body = {"model": endpoint.model, "temperature": 0, "max_tokens": 1, "logprobs": 1}
    generated = client.completions.with_raw_response.create(prompt=prompt, **body).http_response.json()
    logprobs = (generated.get("choices") or [{}])[0].get("logprobs") or {}
    tokens, values = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
    if not tokens or not tokens[0] or values[0] is None:
        return None  # no generated token to compare with: the scoring's own request judged the rest
    echoed = client.completions.with_raw_response.create(prompt=prompt + tokens[0], echo=True, **body)
    echoed = echoed.http_response.json()
    if len(prompt) not in ((echoed["choices"][0].get("logprobs") or {}).get("text_offset") or []):
        return None  # the prompt's end and the token merged into another token: nothing to compare
    got = continuation_logprob(echoed, prompt, tokens[0], "the check's probe request")
    if abs(got - float(values[0])) <= ECHO_TOLERANCE:
        return None
    return (
        f"its echoed log-probability of a token after the prompt ({got:.4f}) is not the one it gives that token when "
        f"it generates it ({float(values[0]):.4f}): its prompt log-probabilities are not where they belong "
        "(llama-cpp-python's are one token off, its issue 1983), so the verbalisers' likelihoods would be wrong"
    )


def _try_scoring(name: str, endpoint: Endpoint, reach: Reach, key: str, prompting: Prompting) -> str | None:
    """None when one probe request shows the server does the scoring, else what went wrong."""
    import openai

    prompt = ServedPrompts(prompting, "para").content_free()
    client = _client(endpoint, reach, key)
    responses = []
    try:
        for body in requests_for(endpoint, prompting, prompt):
            create = client.chat.completions if endpoint.api == "chat" else client.completions
            responses.append(create.with_raw_response.create(**body).http_response.json())
        outcome_of(endpoint, prompting, prompt, responses, "the check's probe request")
        if endpoint.scoring == "prompt_logprobs":
            return echo_problem(client, endpoint, prompt)
    except (EndpointError, NotOurs) as error:
        return str(error)
    except openai.APIStatusError as error:
        return redact(f"the server answered {error.status_code}: {error.message}", key)
    except openai.APIError as error:
        return redact(f"{type(error).__name__}: {error}", key)
    return None


def check_server(name: str, endpoint: Endpoint, reach: Reach, prompting: Prompting) -> None:
    """Raise EndpointError, saying what to do, unless the server `reach` leads to serves the model
    and can do its scoring."""
    key = reach.key or endpoint.api_key(name)
    base_url = reach.base_url
    served = listed_models(name, endpoint, reach, key)
    if served is not None and endpoint.model not in served:
        raise EndpointError(
            f"served model {name!r}: the server at {base_url} serves no model {endpoint.model!r} (endpoint.model)."
            f"{did_you_mean(endpoint.model, served)} It serves: {', '.join(served) or 'nothing'}"
        )
    problem = _try_scoring(name, endpoint, reach, key, prompting)
    if problem is None:
        return
    works = next(
        (
            other
            for other in FALLBACKS.get(endpoint.scoring, ())
            if _try_scoring(name, replace(endpoint, scoring=other), reach, key, prompting) is None
        ),
        None,
    )
    fix = f"set endpoint.scoring: {works}, which a probe request showed it can do" if works else "fix the server"
    raise EndpointError(
        f"served model {name!r} ({endpoint.model} at {base_url}) cannot do scoring {endpoint.scoring}: {problem}; {fix}"
    )


def check_before_run(models: Mapping[str, Mapping[str, Any]], names: Iterable[str]) -> None:
    """The checks of every served model of `names` (config's `models` blocks by name) whose server
    is the user's to run, all at once: raise EndpointError listing every model that cannot be
    asked. Skipped with TABPROBE_ENDPOINT_OFFLINE=1 (every answer from the cache); a model with a
    `serve:` command is checked by its first job, once its server is up."""
    if offline():
        return
    problems = []
    for name in sorted(names):
        block = models[name]["endpoint"]
        endpoint = Endpoint.from_settings(block)
        if endpoint.serve:
            continue
        try:
            check_server(name, endpoint, Reach(endpoint.base_url), served_prompting(block, []))
        except EndpointError as error:
            problems.append(str(error))
    if problems:
        raise EndpointError("before any job of the run: " + "\n  ".join(["", *problems]).lstrip("\n "))
