"""Asking a served model: the official `openai` async client, with what a job that sends thousands
of requests needs around it.

- The cache first (tabprobe.models.endpoint.cache): a request answered before is not sent again.
- At most `concurrency` requests in flight (an asyncio semaphore), and no more than
  `requests_per_minute` started per minute (start times spaced evenly).
- Retries are the openai client's own: exponential backoff with jitter (0.5 s doubling up to 8 s,
  less up to a quarter at random) on 408, 409, 429 and 5xx answers, timeouts and dropped
  connections, and a server's Retry-After (or retry-after-ms) honoured where it asks for up to two
  minutes; `max_retries` per request, `timeout_s` per attempt. How many retries each request
  took is read from its raw response and counted.
- The run's request budget (`max_requests`): every request sent, and every retry, counts against
  it, across all of the model's jobs of one run of the workflow (a tally beside the cache,
  locked per update, under the run's id, which the workflow sets: budget.RUN_VARIABLE); a request
  that would exceed it is not sent, and the job stops saying how many were sent.
- A request that fails for good (an error answer after its retries, or one the client does not
  retry, such as 400) stops the job with the server's message, the key blotted out; the answers
  already received stay in the cache, so the next run resumes from them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from tabprobe.models.endpoint.budget import Budget
from tabprobe.models.endpoint.cache import ResponseCache, request_digest
from tabprobe.models.endpoint.reach import NotOurs, Reach
from tabprobe.models.endpoint.settings import OFFLINE, Endpoint, EndpointError, redact

log = logging.getLogger(__name__)

# How often a job logs its progress.
PROGRESS_SECONDS = 10.0


@dataclass
class Usage:
    """What a job's requests cost: `requests` sent (each once, however often retried), `retries`,
    `cached` answers read instead of asked, tokens in and out as the server counts them."""

    requests: int = 0
    retries: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class RateLimit:
    """Request starts spaced evenly: at most `per_minute` a minute (None: no limit)."""

    def __init__(self, per_minute: float | None):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.next = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            now = time.monotonic()
            start = max(now, self.next)
            self.next = start + self.interval
        await asyncio.sleep(start - now)


class EndpointClient:
    """One job's requests to one served model, answered from the cache where it can, sent where
    `reach` says (a server the workflow started: its key, and connections checked to lead to it).
    Used inside one event loop (`run_all`)."""

    def __init__(
        self,
        endpoint: Endpoint,
        reach: Reach,
        cache: ResponseCache,
        budget: Budget,
        name: str,
        offline: bool = False,
    ):
        self.endpoint = endpoint
        self.reach = reach
        self.base_url = reach.base_url
        self.cache = cache
        self.budget = budget
        self.name = name
        self.offline = offline
        self.usage = Usage()
        self.key = None if offline else (reach.key or endpoint.api_key(name))
        self.client = None

    async def __aenter__(self) -> EndpointClient:
        if not self.offline:
            from openai import AsyncOpenAI

            self.client = AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.key,
                timeout=self.endpoint.timeout_s,
                max_retries=self.endpoint.max_retries,
                http_client=self.reach.async_client(self.endpoint.timeout_s),
            )
        self.semaphore = asyncio.Semaphore(self.endpoint.concurrency)
        self.rate = RateLimit(self.endpoint.requests_per_minute)
        return self

    async def __aexit__(self, *exc) -> None:
        if self.client is not None:
            await self.client.close()

    async def answer(self, api: str, body: Mapping[str, Any]) -> tuple[str, dict]:
        """(the request's digest, the server's JSON answer), from the cache or the server."""
        digest = request_digest(api, body)
        cached = self.cache.get(digest)
        if cached is not None:
            self.usage.cached += 1
            return digest, cached
        if self.offline:
            raise EndpointError(
                f"served model {self.name!r}: request {digest[:12]} is not in the cache ({self.cache.folder}) and "
                f"{OFFLINE}=1 sends none; unset it and start the server to ask the rest"
            )
        async with self.semaphore:
            await self.rate.wait()
            self.budget.take(1)
            response, retries = await self._send(api, body, digest)
        self.budget.take(retries, check=False)
        self.usage.requests += 1
        self.usage.retries += retries
        usage = response.get("usage") or {}
        self.usage.tokens_in += int(usage.get("prompt_tokens") or 0)
        self.usage.tokens_out += int(usage.get("completion_tokens") or 0)
        self.cache.put(digest, api, body, response)
        return digest, response

    async def _send(self, api: str, body: Mapping[str, Any], digest: str) -> tuple[dict, int]:
        import openai

        create = (self.client.chat.completions if api == "chat" else self.client.completions).with_raw_response.create
        try:
            raw = await create(**body)
        except NotOurs as error:  # not retried: the far end is someone else's, and would stay so
            raise EndpointError(self._failed(digest, str(error))) from None
        except openai.APIStatusError as error:
            raise EndpointError(
                self._failed(digest, f"the server answered {error.status_code}: {error.message}")
            ) from None
        except openai.APITimeoutError:
            raise EndpointError(
                self._failed(digest, f"no answer within timeout_s={self.endpoint.timeout_s} s, {self._tries()}")
            ) from None
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            raise EndpointError(self._failed(digest, f"cannot connect ({cause}), {self._tries()}")) from None
        try:
            response = json.loads(raw.http_response.text)
        except ValueError:
            raise EndpointError(self._failed(digest, "the answer is not JSON")) from None
        return response, int(raw.retries_taken)

    def _tries(self) -> str:
        return f"tried {self.endpoint.max_retries + 1} times (max_retries={self.endpoint.max_retries})"

    def _failed(self, digest: str, what: str) -> str:
        return redact(
            f"served model {self.name!r} ({self.endpoint.model} at {self.base_url}): request {digest[:12]} failed: "
            f"{what}. The answers received so far are cached; the next run asks only for the rest.",
            self.key,
        )


async def run_all(
    client: EndpointClient, jobs: list[Callable[[], Awaitable[Any]]], what: str = "examples"
) -> list[Any]:
    """Run every job (a coroutine function using `client`), all started at once and held back by
    the client's concurrency; their results in order. The first failure cancels the rest (their
    answers so far are cached) and is raised."""
    done = 0
    started = last = time.monotonic()
    tasks = [asyncio.ensure_future(job()) for job in jobs]

    def progress(force: bool = False) -> None:
        nonlocal last
        now = time.monotonic()
        if force or now - last >= PROGRESS_SECONDS:
            last = now
            u = client.usage
            log.info(
                "%s: %d of %d %s answered in %.0f s (%d requests sent, %d from the cache, %d retries)",
                client.name,
                done,
                len(tasks),
                what,
                now - started,
                u.requests,
                u.cached,
                u.retries,
            )

    try:
        for future in asyncio.as_completed(tasks):
            await future
            done += 1
            progress()
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    progress(force=True)
    return [task.result() for task in tasks]
