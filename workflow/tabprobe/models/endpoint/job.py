"""Rule query_endpoint: one served model's predictions on one probe's examples of one split, in
the predictions contract (schemas.PREDICTIONS: E/N/C probabilities) with what the server answered
beside them (schemas.SERVED_ANSWERS), and the job's statistics (requests, retries, tokens,
seconds, unparsed answers) for run.json."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import LABELS, schemas
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS
from tabprobe.io import read_parquet, write_json, write_parquet
from tabprobe.models.causal import probabilities
from tabprobe.models.endpoint import lifecycle
from tabprobe.models.endpoint.cache import ResponseCache
from tabprobe.models.endpoint.check import check_server
from tabprobe.models.endpoint.client import Budget, EndpointClient, run_all
from tabprobe.models.endpoint.prompts import Prompt, ServedPrompts, served_prompting
from tabprobe.models.endpoint.reach import Reach
from tabprobe.models.endpoint.scorings import Outcome, outcome_of, requests_for
from tabprobe.models.endpoint.settings import Endpoint, EndpointError, offline
from tabprobe.models.lm_prompts import Prompting

log = logging.getLogger(__name__)


def prompt_digest(prompt: Prompt) -> str:
    """A short hash of exactly the prompt a served model saw (predictions' `input_digest`): equal
    for a probe example and its original when the edit did not reach the prompt."""
    text = json.dumps(prompt, ensure_ascii=False, sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def fingerprint(endpoint: Endpoint) -> str:
    return f"served:{endpoint.model}"


async def _ask_all(
    endpoint: Endpoint,
    reach: Reach,
    name: str,
    prompting: Prompting,
    prompts: list[Prompt],
    uids: list[str],
    free: Prompt | None,
    is_offline: bool,
) -> tuple[list[tuple[list[str], Outcome]], Outcome | None, dict]:
    """Every example's request digests and outcome, the content-free prompt's outcome (calibration),
    and what the requests cost."""
    cache = ResponseCache(endpoint.cache)
    budget = Budget(endpoint.max_requests, endpoint.cache, name)
    async with EndpointClient(endpoint, reach, cache, budget, name, offline=is_offline) as client:

        async def one(prompt: Prompt, what: str) -> tuple[list[str], Outcome]:
            answered = await asyncio.gather(
                *(client.answer(endpoint.api, body) for body in requests_for(endpoint, prompting, prompt))
            )
            where = f"served model {name!r} ({endpoint.model} at {reach.base_url}), {what}"
            return [d for d, _ in answered], outcome_of(endpoint, prompting, prompt, [r for _, r in answered], where)

        calibration = None
        if free is not None:
            calibration = (await one(free, "the content-free prompt of contextual calibration"))[1]
        results = await run_all(client, [partial(one, p, f"example {u}") for p, u in zip(prompts, uids)])
        return results, calibration, client.usage.as_dict()


def calibration_priors(outcome: Outcome | None, verbalisers: Mapping[str, str]) -> np.ndarray | None:
    """The label priors of the content-free prompt (contextual calibration), each above 0."""
    if outcome is None:
        return None
    if outcome.scores is None or np.isneginf(outcome.scores).any():
        absent = [lab for lab in LABELS if outcome.scores is None or np.isneginf(outcome.scores[LABELS.index(lab)])]
        raise EndpointError(
            "contextual calibration: the content-free prompt gives no probability to "
            + ", ".join(f"{lab} ({verbalisers[lab]!r})" for lab in absent)
            + " (no listed first token begins it), so dividing by its prior is undefined; raise endpoint.top_logprobs "
            "or set endpoint.calibrate false"
        )
    return probabilities(outcome.scores[None, :])[0]


def prediction_tables(
    examples: pa.Table,
    results: list[tuple[list[str], Outcome]],
    prompts: list[Prompt],
    priors: np.ndarray | None,
    model_fingerprint: str,
) -> tuple[pa.Table, pa.Table]:
    """The predictions (schemas.PREDICTIONS) and the answers beside them (schemas.SERVED_ANSWERS)."""
    preds, probs = [], []
    for _, outcome in results:
        if outcome.scores is None:
            preds.append(schemas.UNPARSED)
            probs.append([0.0, 0.0, 0.0])
        else:
            p = probabilities(outcome.scores[None, :], priors)[0].astype(np.float32)
            preds.append(LABELS[int(p.argmax())])
            probs.append(p.tolist())
    predictions = pa.table(
        {
            "uid": examples["uid"],
            "orig_uid": examples["orig_uid"],
            "pred": pa.array(preds, pa.string()),
            "probs": pa.array(probs, pa.list_(pa.float32())),
            "model_fingerprint": pa.array([model_fingerprint] * len(preds), pa.string()),
            "input_digest": pa.array([prompt_digest(p) for p in prompts], pa.string()),
        },
        schema=schemas.PREDICTIONS,
    )
    answers = pa.table(
        {
            "uid": examples["uid"],
            "request_digests": pa.array([d for d, _ in results], pa.list_(pa.string())),
            "answer": pa.array([o.answer for _, o in results], pa.string()),
            "parsed": pa.array([o.scores is not None for _, o in results], pa.bool_()),
            "thinking": pa.array([o.thinking for _, o in results], pa.string()),
            "missing_verbalisers": pa.array([o.missing for _, o in results], pa.list_(pa.string())),
        },
        schema=schemas.SERVED_ANSWERS,
    )
    return predictions, answers


def job_statistics(
    model: str,
    settings: Endpoint,
    prompting: Prompting,
    premise: str,
    probe_path: str,
    results: list[tuple[list[str], Outcome]],
    priors: np.ndarray | None,
    usage: Mapping[str, int],
    started: float,
    access: str | None = None,
) -> dict[str, Any]:
    """What the job records beside its predictions, in the shape of infer_nli's (collect_results
    reads both), with the served model's own: how it was asked and scored, and the job's
    requests, retries, tokens, seconds and unparsed answers (logged too)."""
    unparsed = sum(o.scores is None for _, o in results)
    missing = {lab: sum(lab in o.missing for _, o in results) for lab in LABELS}
    seconds = round(time.monotonic() - started, 2)
    log.info(
        "%s: %d examples, %d unparsed, scoring %s; %d requests sent (%d retries), %d answers from the cache, "
        "%d tokens in, %d out, %.1f s",
        model,
        len(results),
        unparsed,
        settings.scoring,
        usage["requests"],
        usage["retries"],
        usage["cached"],
        usage["tokens_in"],
        usage["tokens_out"],
        seconds,
    )
    return {
        "examples": len(results),
        "truncated": 0,  # a served model's prompts are not cut (prompts.py says why)
        "premise": premise,
        "checkpoint": f"{settings.model} at {settings.base_url}",
        "fingerprint": fingerprint(settings),
        "meta": None,
        "precision": None,
        "max_length": None,
        "seconds": seconds,
        "endpoint": {
            "model": settings.model,
            "base_url": settings.base_url,
            "api": settings.api,
            "scoring": settings.scoring,
            "template": prompting.template,
            "question": prompting.question,
            "verbalisers": dict(prompting.verbalisers),
            "shots": len(prompting.shots),
            "reasoning": bool(settings.reasoning),
            "calibrated_priors": None if priors is None else dict(zip(LABELS, [round(float(p), 6) for p in priors])),
            # What the server the workflow started was open to (reach.PRIVATE_NETWORK, KEYED, OPEN).
            "server_access": access,
        },
        "job": {
            "probe_file": str(probe_path),
            "examples": len(results),
            "unparsed": unparsed,
            "missing_verbalisers": missing,
            **usage,
            "seconds": seconds,
        },
    }


def query_endpoint(
    probe_path: str,
    out: str,
    answers_out: str,
    stats_out: str,
    model: str,
    premise: str,
    endpoint: Mapping[str, Any],
    shots: str | None = None,
    serve_log: str | None = None,
) -> None:
    """Rule query_endpoint: the predictions of served model `model` (its `endpoint:` block) on the
    examples of `probe_path`, prompted with the k-shot examples in `shots` (select_shots). Every
    answer comes from the response cache where it is there, else from the server, which a `serve:`
    command starts first (tabprobe.models.endpoint.lifecycle). With TABPROBE_ENDPOINT_OFFLINE=1 no
    request is sent: every answer must be in the cache."""
    started = time.monotonic()
    # The HTTP library logs every request at INFO: the job's log has its own progress lines instead.
    for noisy in ("httpx", "httpx2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    settings = Endpoint.from_settings(endpoint)
    prompting = served_prompting(endpoint, json.loads(Path(shots).read_text(encoding="utf-8")) if shots else [])
    builder = ServedPrompts(prompting, premise)
    examples = read_parquet(probe_path, PROBE_EXAMPLES_SCHEMAS)
    records = examples.select(["uid", "table", "hypothesis"]).to_pylist()
    prompts = [builder.of_example(r) for r in records]
    free = builder.content_free() if prompting.calibrate else None
    is_offline = offline()
    with lifecycle.served(model, settings, serve_log, is_offline) as reach:
        access = reach.access
        if settings.serve and not is_offline:
            check_server(model, settings, reach, prompting)  # the config check could not: no server then
        results, calibration, usage = asyncio.run(
            _ask_all(settings, reach, model, prompting, prompts, [r["uid"] for r in records], free, is_offline)
        )
    priors = calibration_priors(calibration, prompting.verbalisers)
    predictions, answers = prediction_tables(examples, results, prompts, priors, fingerprint(settings))
    stats = job_statistics(model, settings, prompting, premise, probe_path, results, priors, usage, started, access)
    write_parquet(predictions, out, schemas.PREDICTIONS)
    write_parquet(answers, answers_out, schemas.SERVED_ANSWERS)
    write_json(stats, stats_out)
