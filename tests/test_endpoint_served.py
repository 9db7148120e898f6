"""Served models against real servers (tests/served.py): `transformers serve` of a tiny random
Llama (generate; chat and completions), and a fault-injecting proxy in front of it (429s with
Retry-After, 500s, slow answers, dropped connections); the response cache (a second run asks
nothing, a run with the server stopped gives the same bytes, a killed job resumes, the budget
stops a run); the checks before a run; the API key in no file. The log-probability scorings
against llama.cpp's server are in test_endpoint_logprobs.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from served import FaultProxy, transformers_serve
from tiny_causal import tiny_causal

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infotabs import ingest
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.io import read_parquet, write_parquet
from tabprobe.models.endpoint.cache import ResponseCache
from tabprobe.models.endpoint.check import check_before_run, check_server
from tabprobe.models.endpoint.job import query_endpoint
from tabprobe.models.endpoint.prompts import served_prompting
from tabprobe.models.endpoint.reach import Reach
from tabprobe.models.endpoint.settings import OFFLINE, Endpoint, EndpointError
from tabprobe.probes.generation import generate

EXAMPLES = 10
KEY = "sk-tabprobe-TEST-9f8e7d6c5b4a"  # recognisable: searched for in every file a run writes


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    model = tiny_causal(folder / "tiny-lm", "llama", answers=("true", "neither", "false"))
    running = transformers_serve(model, folder / "server.log")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def probe_file(tmp_path_factory, shared_infotabs):
    ingested = ingest.ingest_split(shared_infotabs, "alpha1")
    table, _ = generate("original", ingested.examples.slice(0, EXAMPLES), infotabs.load_tables(ingested.tables), 2022)
    path = tmp_path_factory.mktemp("probe") / "original.parquet"
    write_parquet(table, path, infobox.PROBE_EXAMPLES)
    return path


def endpoint_block(base_url: str, model: str, cache: Path, **keys) -> dict:
    return {
        "base_url": base_url,
        "model": model,
        "api": "chat",
        "scoring": "generate",
        "max_tokens": 4,
        "concurrency": 2,
        "timeout_s": 60,
        "cache": str(cache),
        **keys,
    }


def run_job(folder: Path, probe_file: Path, block: dict, name: str = "tiny-served") -> dict:
    """query_endpoint as the rule runs it; its stats."""
    folder.mkdir(parents=True, exist_ok=True)
    query_endpoint(
        probe_path=str(probe_file),
        out=str(folder / "p.parquet"),
        answers_out=str(folder / "p.answers.parquet"),
        stats_out=str(folder / "p.json"),
        model=name,
        premise="markdown",
        endpoint=block,
    )
    return json.loads((folder / "p.json").read_text())


@pytest.fixture(scope="module")
def first_run(server, probe_file, tmp_path_factory):
    folder = tmp_path_factory.mktemp("first")
    block = endpoint_block(server.base_url, server.model, folder / "cache")
    return folder, block, run_job(folder / "run", probe_file, block)


def test_a_served_model_answers_in_the_predictions_contract(first_run):
    folder, _, stats = first_run
    predictions = read_parquet(folder / "run" / "p.parquet", schemas.PREDICTIONS)
    answers = read_parquet(folder / "run" / "p.answers.parquet", schemas.SERVED_ANSWERS)
    assert predictions.num_rows == answers.num_rows == EXAMPLES
    assert predictions["uid"].to_pylist() == answers["uid"].to_pylist()
    for pred, probs, parsed, text in zip(
        predictions["pred"].to_pylist(),
        predictions["probs"].to_pylist(),
        answers["parsed"].to_pylist(),
        answers["answer"].to_pylist(),
    ):
        # Parsed: all of the probability on its label; unparsed: its own outcome, never N.
        assert (pred in "ENC" and sorted(probs) == [0.0, 0.0, 1.0]) if parsed else (pred == "?" and probs == [0] * 3)
        assert isinstance(text, str) and text
    assert all(len(d) == 1 and len(d[0]) == 64 for d in answers["request_digests"].to_pylist())
    job = stats["job"]
    assert (job["requests"], job["cached"], job["retries"]) == (EXAMPLES, 0, 0)
    assert job["tokens_in"] > 100 * EXAMPLES and job["tokens_out"] > 0
    assert job["unparsed"] == answers["parsed"].to_pylist().count(False)
    assert stats["endpoint"]["scoring"] == "generate" and stats["fingerprint"] == f"served:{stats['endpoint']['model']}"


def test_a_second_run_reads_every_answer_from_the_cache(first_run, probe_file):
    folder, block, _ = first_run
    stats = run_job(folder / "again", probe_file, block)
    assert (stats["job"]["requests"], stats["job"]["cached"]) == (0, EXAMPLES)
    for name in ("p.parquet", "p.answers.parquet"):
        assert (folder / "again" / name).read_bytes() == (folder / "run" / name).read_bytes()


def test_with_the_server_stopped_the_cache_gives_the_same_bytes(first_run, probe_file, monkeypatch):
    """No server at all (nothing listens at the address): offline, every answer from the cache."""
    folder, block, _ = first_run
    monkeypatch.setenv(OFFLINE, "1")
    stats = run_job(folder / "offline", probe_file, {**block, "base_url": "http://127.0.0.1:9/v1"})
    assert stats["job"]["cached"] == EXAMPLES and stats["job"]["requests"] == 0
    for name in ("p.parquet", "p.answers.parquet"):
        assert (folder / "offline" / name).read_bytes() == (folder / "run" / name).read_bytes()
    # A request the cache does not hold is refused, never sent.
    with pytest.raises(EndpointError, match="not in the cache .* TABPROBE_ENDPOINT_OFFLINE=1"):
        run_job(folder / "offline2", probe_file, {**block, "max_tokens": 5})


def test_faults_are_retried_and_the_answers_are_the_same(first_run, server, probe_file, tmp_path):
    """A 429 with Retry-After, a 500, a dropped connection and an answer slower than timeout_s,
    each retried by the client; the run ends with the bytes of a run without faults."""
    folder, block, _ = first_run
    proxy = FaultProxy(
        server.base_url.split("//")[1].split("/")[0], faults=["429", "500", "drop", "slow"], slow_seconds=12
    )
    try:
        stats = run_job(
            tmp_path / "faults",
            probe_file,
            {**block, "base_url": proxy.base_url, "cache": str(tmp_path / "cache"), "timeout_s": 6, "concurrency": 1},
        )
    finally:
        proxy.close()
    assert stats["job"]["retries"] == 4 and stats["job"]["requests"] == EXAMPLES
    posts = proxy.posts()
    assert [s.fault for s in posts[:4]] == ["429", "500", "drop", "slow"] and len(posts) == EXAMPLES + 4
    # The retry after the 429 waited as its Retry-After asked (2 s; the client's own first backoff is under 0.5 s).
    assert posts[1].at - posts[0].at >= 1.9
    assert posts[2].at - posts[1].at < 1.9
    for name in ("p.parquet", "p.answers.parquet"):
        assert (tmp_path / "faults" / name).read_bytes() == (folder / "run" / name).read_bytes()


def test_a_request_that_keeps_failing_stops_the_job_and_keeps_what_it_had(server, probe_file, tmp_path):
    proxy = FaultProxy(server.base_url.split("//")[1].split("/")[0], faults=[None, None, "500", "500", "500"])
    block = endpoint_block(proxy.base_url, server.model, tmp_path / "cache", concurrency=1, max_retries=2)
    try:
        with pytest.raises(EndpointError, match=r"failed: the server answered 500.*cached; the next run asks only"):
            run_job(tmp_path / "run", probe_file, block)
    finally:
        proxy.close()
    assert len(ResponseCache(tmp_path / "cache")) == 2


def test_the_budget_stops_a_run_and_the_next_asks_only_the_rest(server, probe_file, tmp_path, monkeypatch):
    monkeypatch.setenv("TABPROBE_RUN_ID", "budget-run-1")
    block = endpoint_block(server.base_url, server.model, tmp_path / "cache", concurrency=1, max_requests=4)
    with pytest.raises(EndpointError, match="request budget is spent: 4 of max_requests=4"):
        run_job(tmp_path / "run", probe_file, block)
    assert len(ResponseCache(tmp_path / "cache")) == 4
    monkeypatch.setenv("TABPROBE_RUN_ID", "budget-run-2")  # a new run of the workflow
    stats = run_job(tmp_path / "run", probe_file, {**block, "max_requests": EXAMPLES})
    assert (stats["job"]["requests"], stats["job"]["cached"]) == (EXAMPLES - 4, 4)


def test_a_killed_job_resumes_from_its_cached_answers(first_run, server, probe_file, tmp_path):
    """A job killed midway (SIGKILL) has its answers so far on disk; the next run asks for the rest
    only and ends with the bytes of an uninterrupted run."""
    folder, block, _ = first_run
    proxy = FaultProxy(server.base_url.split("//")[1].split("/")[0], faults=["slow"] * EXAMPLES, slow_seconds=1.0)
    killed = {**block, "base_url": proxy.base_url, "cache": str(tmp_path / "cache"), "concurrency": 1}
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_endpoint_served import run_job\n"
        "from pathlib import Path\n"
        "run_job(Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3]))\n"
    )
    job = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path / "killed"), str(probe_file), json.dumps(killed)],
        start_new_session=True,
    )
    try:
        cache = tmp_path / "cache"
        deadline = time.monotonic() + 240
        while (not cache.is_dir() or len(ResponseCache(cache)) < 3) and time.monotonic() < deadline:
            assert job.poll() is None, "the job ended before it was killed"
            time.sleep(0.1)
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
    finally:
        proxy.close()
    done = len(ResponseCache(cache))
    assert 3 <= done < EXAMPLES and not (tmp_path / "killed" / "p.parquet").exists()
    stats = run_job(tmp_path / "resumed", probe_file, {**block, "cache": str(cache)})
    assert (stats["job"]["cached"], stats["job"]["requests"]) == (done, EXAMPLES - done)
    for name in ("p.parquet", "p.answers.parquet"):
        assert (tmp_path / "resumed" / name).read_bytes() == (folder / "run" / name).read_bytes()


def test_the_key_is_sent_and_written_nowhere(server, probe_file, tmp_path, monkeypatch):
    monkeypatch.setenv("TABPROBE_TEST_KEY", KEY)
    proxy = FaultProxy(server.base_url.split("//")[1].split("/")[0], faults=["500"])
    block = endpoint_block(proxy.base_url, server.model, tmp_path / "cache", api_key_env="TABPROBE_TEST_KEY")
    try:
        run_job(tmp_path / "run", probe_file, block)
    finally:
        proxy.close()
    assert {s.authorization for s in proxy.posts()} == {f"Bearer {KEY}"}
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > EXAMPLES
    assert [p for p in written if KEY.encode() in p.read_bytes()] == []


def test_the_checks_name_the_model_the_key_and_the_fix(server, monkeypatch, tmp_path):
    prompting = served_prompting({"api": "chat"}, [])
    ok = Endpoint.from_settings(endpoint_block(server.base_url, server.model, tmp_path))
    check_server("tiny-served", ok, Reach(ok.base_url), prompting)
    with pytest.raises(
        EndpointError, match=r"'tiny-served': no server answers at http://127.0.0.1:9/v1.*Start the server"
    ):
        check_server("tiny-served", ok, Reach("http://127.0.0.1:9/v1"), prompting)
    misspelt = Endpoint.from_settings(endpoint_block(server.base_url, server.model + "x", tmp_path))
    with pytest.raises(EndpointError, match=rf"serves no model '{server.model}x'.*Did you mean '{server.model}'"):
        check_server("tiny-served", misspelt, Reach(server.base_url), prompting)
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    keyed = Endpoint.from_settings(
        endpoint_block(server.base_url, server.model, tmp_path, api_key_env="NO_SUCH_KEY_VAR")
    )
    with pytest.raises(
        EndpointError, match=r"'tiny-served': the environment variable NO_SUCH_KEY_VAR .*\(export NO_SUCH_KEY_VAR=...\)"
    ):
        check_server("tiny-served", keyed, Reach(server.base_url), prompting)
    # transformers serve ignores `logprobs`: its answers hold none, and the check says what works.
    for scoring, api in (("first_token", "chat"), ("prompt_logprobs", "completions")):
        wants = Endpoint.from_settings(
            endpoint_block(server.base_url, server.model, tmp_path, scoring=scoring, api=api)
        )
        with pytest.raises(EndpointError, match=rf"cannot do scoring {scoring}: .*set endpoint.scoring: generate"):
            check_server("tiny-served", wants, Reach(server.base_url), served_prompting({"api": api}, []))


def test_the_check_before_a_run_lists_every_model_and_skips_offline(server, monkeypatch, tmp_path):
    models = {
        "good": {"endpoint": endpoint_block(server.base_url, server.model, tmp_path)},
        "down": {"endpoint": endpoint_block("http://127.0.0.1:9/v1", "m", tmp_path)},
        "wrong": {"endpoint": endpoint_block(server.base_url, "nope", tmp_path)},
    }
    with pytest.raises(EndpointError) as error:
        check_before_run(models, ["good", "down", "wrong"])
    assert "'down': no server" in str(error.value) and "'wrong': the server at" in str(error.value)
    assert "serves no model 'nope'" in str(error.value) and "'good'" not in str(error.value)
    check_before_run(models, ["good"])
    monkeypatch.setenv(OFFLINE, "1")
    check_before_run(models, ["down", "wrong"])
