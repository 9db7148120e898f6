"""Benchmark: tabprobe's client for served models (tabprobe.models.endpoint: the response cache,
the budget, retries, bounded concurrency, the answer parsed) against a bare loop of the openai
async client at the same concurrency, on the same local server and the same prompts, in one run:
requests per second of each and their ratio (tabprobe / bare; the goal is 0.95 or more). Rounds
alternate (bare, tabprobe, bare, tabprobe, ...) so that a drift of the machine's load falls on
both; every tabprobe round starts from an empty cache, so every request is sent.

The server is `transformers serve` of a checkpoint folder (SmolLM2's, once the workflow has
unpacked it: resources/served/<model>/, or any causal-LM folder), started here on a free port and
stopped at the end. The prompts are alpha1 `original` examples as config.smollm2.yaml prompts
them (markdown tables, the chat API). With --in-process, the same examples scored in this process
by the causal LM path from the same folder (label likelihood), examples/s beside the served ones.

    PYTHONPATH=workflow .venv/bin/python bench/endpoint.py --checkpoint runs/smollm2-served/resources/served/smollm2-served \
        --examples 40 --concurrency 2 --rounds 2 --in-process
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from functools import partial
from pathlib import Path

from inference import alpha1_originals, emit  # bench/inference.py, beside this script

from tabprobe.models.endpoint.budget import Budget
from tabprobe.models.endpoint.cache import ResponseCache
from tabprobe.models.endpoint.client import EndpointClient, run_all
from tabprobe.models.endpoint.prompts import ServedPrompts, served_prompting
from tabprobe.models.endpoint.scorings import outcome_of, requests_for
from tabprobe.models.endpoint.settings import Endpoint

# config.smollm2.yaml's prompting (and config.smollm2-served.yaml's).
PROMPTING = {
    "template": "Table:\n{premise}\n\nStatement: {hypothesis}\n{question}",
    "question": "Based on the table, is the statement true, false, or neither? Answer with one word.",
    "verbalisers": {"E": "True", "N": "Neither", "C": "False"},
}


def start_server(checkpoint: Path, log: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [str(Path(sys.executable).with_name("transformers")), "serve", str(checkpoint), "--port", str(port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*command, "--device", "cpu"], stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2):
                return process, base_url
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"the server exited: {log.read_text()[-2000:]}") from None
            time.sleep(0.5)
    raise SystemExit("the server did not answer within 600 s")


async def bare(base_url: str, model: str, prompts: list, concurrency: int, max_tokens: int) -> float:
    """Seconds for a plain loop of the openai async client: a semaphore, one request per prompt."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="EMPTY", timeout=60, max_retries=6)
    gate = asyncio.Semaphore(concurrency)

    async def one(messages):
        async with gate:
            response = await client.chat.completions.create(
                model=model, messages=messages, max_tokens=max_tokens, temperature=0, seed=0
            )
            return response.choices[0].message.content

    start = time.perf_counter()
    await asyncio.gather(*(one(m) for m in prompts))
    seconds = time.perf_counter() - start
    await client.close()
    return seconds


async def tabprobe(block: dict, prompts: list, cache: Path) -> float:
    """Seconds for the job's own path: every request through EndpointClient (cache first, budget,
    rate limit, retries) and every answer parsed, from an empty cache."""
    endpoint = Endpoint.from_settings({**block, "cache": str(cache)})
    prompting = served_prompting(block, [])
    budget = Budget(None, cache, "bench")
    start = time.perf_counter()
    async with EndpointClient(endpoint, endpoint.base_url, ResponseCache(cache), budget, "bench") as client:

        async def one(prompt):
            answered = [await client.answer(endpoint.api, b) for b in requests_for(endpoint, prompting, prompt)]
            return outcome_of(endpoint, prompting, prompt, [r for _, r in answered], "bench")

        await run_all(client, [partial(one, p) for p in prompts])
    seconds = time.perf_counter() - start
    assert client.usage.requests == len(prompts) and client.usage.cached == 0
    return seconds


def in_process(checkpoint: Path, examples, premise: str) -> dict:
    """The same examples scored in this process by the causal LM path (label likelihood)."""
    import torch

    from tabprobe.models import causal

    torch.set_num_threads(2)
    loaded = causal.load_causal_lm(checkpoint)
    prompt = {**PROMPTING, "chat_template": True, "shots": [], "calibrate": False}
    causal.infer(examples.slice(0, 2), loaded, premise, prompt, batch_size=4, max_length=2048)  # warm-up
    start = time.perf_counter()
    causal.infer(examples, loaded, premise, prompt, batch_size=4, max_length=2048)
    seconds = time.perf_counter() - start
    return {"seconds": round(seconds, 1), "examples_per_second": round(examples.num_rows / seconds, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="a causal-LM checkpoint folder for transformers serve")
    parser.add_argument("--infotabs", default="../shared/infotabs")
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each, alternating")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--premise", default="markdown")
    parser.add_argument("--in-process", action="store_true", help="also score the examples in this process")
    parser.add_argument("--out", help="write the JSON result here too")
    args = parser.parse_args()
    checkpoint = Path(args.checkpoint).resolve()
    examples = alpha1_originals(args.infotabs, args.examples, seed=2022)
    with tempfile.TemporaryDirectory() as folder:
        process, base_url = start_server(checkpoint, Path(folder) / "server.log")
        try:
            block = {
                **PROMPTING,
                "base_url": base_url,
                "model": str(checkpoint),
                "api": "chat",
                "scoring": "generate",
                "max_tokens": args.max_tokens,
                "concurrency": args.concurrency,
            }
            builder = ServedPrompts(served_prompting(block, []), args.premise)
            prompts = [builder.of_example(r) for r in examples.to_pylist()]
            asyncio.run(bare(base_url, str(checkpoint), prompts[:2], args.concurrency, args.max_tokens))  # warm-up
            times = {"bare": [], "tabprobe": []}
            for round_ in range(args.rounds):
                times["bare"].append(
                    asyncio.run(bare(base_url, str(checkpoint), prompts, args.concurrency, args.max_tokens))
                )
                cache = Path(folder) / f"cache-{round_}"
                times["tabprobe"].append(asyncio.run(tabprobe(block, prompts, cache)))
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
    rates = {k: len(prompts) * len(v) / sum(v) for k, v in times.items()}
    result = {
        "benchmark": "endpoint",
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "checkpoint": str(checkpoint),
        "examples": len(prompts),
        "concurrency": args.concurrency,
        "max_tokens": args.max_tokens,
        "rounds": args.rounds,
        "seconds": {k: [round(s, 2) for s in v] for k, v in times.items()},
        "requests_per_second": {k: round(v, 3) for k, v in rates.items()},
        "ratio_tabprobe_to_bare": round(rates["tabprobe"] / rates["bare"], 3),
        "served_examples_per_second": round(rates["tabprobe"], 3),
    }
    if args.in_process:
        result["in_process"] = in_process(checkpoint, examples, args.premise)
    emit(result, args.out)


if __name__ == "__main__":
    main()
