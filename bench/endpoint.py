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

With --bridge, the same command is also started as the workflow starts a `serve:` command (its
supervisor: the engine in a private network, reached through the bridge's Unix socket, every
connection checked), and the rounds are three: the bare loop straight to the first server, the
bare loop through the bridge, tabprobe's client through the bridge. The ratio tabprobe / bare then
has the bridge on both paths (as the jobs have it); bridged / direct is the bridge's own cost,
shown also by sequential GET /v1/models requests (no model work: the bridge's cost alone).

    PYTHONPATH=workflow .venv/bin/python bench/endpoint.py --checkpoint runs/smollm2-served/resources/served/smollm2-served \
        --examples 40 --concurrency 2 --rounds 2 --in-process
    PYTHONPATH=workflow .venv/bin/python bench/endpoint.py --checkpoint <a causal-LM folder> --examples 40 \
        --concurrency 4 --rounds 3 --bridge
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
from tabprobe.models.endpoint.reach import Reach
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


async def bare(reach: Reach, model: str, prompts: list, concurrency: int, max_tokens: int) -> float:
    """Seconds for a plain loop of the openai async client: a semaphore, one request per prompt
    (through the bridge where `reach` has one, as the jobs' client goes)."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(
        base_url=reach.base_url,
        api_key=reach.key or "EMPTY",
        timeout=60,
        max_retries=6,
        http_client=reach.async_client(60),
    )
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


async def tabprobe(block: dict, prompts: list, cache: Path, reach: Reach) -> float:
    """Seconds for the job's own path: every request through EndpointClient (cache first, budget,
    rate limit, retries) and every answer parsed, from an empty cache."""
    endpoint = Endpoint.from_settings({**block, "cache": str(cache)})
    prompting = served_prompting(block, [])
    budget = Budget(None, cache, "bench")
    start = time.perf_counter()
    async with EndpointClient(endpoint, reach, ResponseCache(cache), budget, "bench") as client:

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


def listings_per_second(reach: Reach, requests: int = 200) -> float:
    """Sequential GET /v1/models on one kept-alive connection: the path's own cost per request."""
    import httpx2

    with reach.sync_client(30) or httpx2.Client(timeout=30) as client:
        client.get(reach.base_url + "/models")  # the connection made
        start = time.perf_counter()
        for _ in range(requests):
            assert client.get(reach.base_url + "/models").status_code == 200
        return requests / (time.perf_counter() - start)


def measure(direct: Reach, bridged: Reach | None, block: dict, prompts: list, args, folder: Path) -> dict:
    """Seconds of each round, by path, alternating, and the listings' rates."""
    model = block["model"]
    reach = bridged or direct
    asyncio.run(bare(reach, model, prompts[:2], args.concurrency, args.max_tokens))  # warm-up
    times = {"bare": [], "tabprobe": [], **({"bare_direct": []} if bridged else {})}
    for round_ in range(args.rounds):
        if bridged:
            times["bare_direct"].append(asyncio.run(bare(direct, model, prompts, args.concurrency, args.max_tokens)))
        times["bare"].append(asyncio.run(bare(reach, model, prompts, args.concurrency, args.max_tokens)))
        cache = folder / f"cache-{round_}"
        times["tabprobe"].append(asyncio.run(tabprobe(block, prompts, cache, reach)))
    listings = None
    if bridged:
        listings = {"direct": round(listings_per_second(direct), 1), "bridged": round(listings_per_second(bridged), 1)}
    return {"times": times, "listings_per_second": listings}


@contextlib.contextmanager
def through_the_bridge(checkpoint: Path, folder: Path):
    """The same server started as a `serve:` command (lifecycle.served: its supervisor, the private
    network, the bridge), held for the `with`."""
    from tabprobe.models.endpoint import lifecycle

    command = " ".join([str(Path(sys.executable).with_name("transformers")), "serve", str(checkpoint)])
    serve = {"command": command + " --port {port} --device cpu"}
    endpoint = Endpoint.from_settings(
        {"base_url": "http://127.0.0.1:{port}/v1", "model": str(checkpoint), "serve": serve}
    )
    with lifecycle.served("bench", endpoint, str(folder / "serve.log"), idle_seconds=5) as reach:
        if reach.socket is None:
            raise SystemExit("--bridge: this machine gives the server no private network (see the serve log)")
        yield reach


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
    parser.add_argument("--bridge", action="store_true", help="also through the bridge of a private server")
    parser.add_argument("--out", help="write the JSON result here too")
    args = parser.parse_args()
    checkpoint = Path(args.checkpoint).resolve()
    examples = alpha1_originals(args.infotabs, args.examples, seed=2022)
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
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
            bridged = stack.enter_context(through_the_bridge(checkpoint, Path(folder))) if args.bridge else None
            measured = measure(Reach(base_url), bridged, block, prompts, args, Path(folder))
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
    times = measured["times"]
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
        "through_the_bridge": bool(args.bridge),
        "seconds": {k: [round(s, 2) for s in v] for k, v in times.items()},
        "requests_per_second": {k: round(v, 3) for k, v in rates.items()},
        "ratio_tabprobe_to_bare": round(rates["tabprobe"] / rates["bare"], 3),
        "served_examples_per_second": round(rates["tabprobe"], 3),
    }
    if args.bridge:
        result["ratio_bridged_to_direct"] = round(rates["bare"] / rates["bare_direct"], 3)
        result["listings_per_second"] = measured["listings_per_second"]
    if args.in_process:
        result["in_process"] = in_process(checkpoint, examples, args.premise)
    emit(result, args.out)


if __name__ == "__main__":
    main()
