"""A served model's `serve:` command (tabprobe.models.endpoint.lifecycle): started once for the
jobs that need it, on a free port, waited on until it lists its models, kept while a job holds it,
stopped when idle; a command that fails says why; a killed supervisor is replaced. The command
here is Python's own HTTP server serving a folder with a v1/models file: a real process that
answers GET /v1/models, which is all the lifecycle asks of a server (test_endpoint_workflow.py
runs `transformers serve` through it)."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tabprobe.models.endpoint import lifecycle
from tabprobe.models.endpoint.settings import Endpoint, EndpointError


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """The servers' folder under this test's own temporary folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def http_server_endpoint(root: Path, **serve) -> Endpoint:
    (root / "v1").mkdir(parents=True, exist_ok=True)
    (root / "v1" / "models").write_text(json.dumps({"data": [{"id": "m"}]}))
    command = f"{sys.executable} -m http.server {{port}} --bind 127.0.0.1 --directory {root}"
    return Endpoint.from_settings(
        {"base_url": "http://127.0.0.1:{port}/v1", "model": "m", "serve": {"command": command, **serve}}
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_jobs_side_by_side_share_one_server_which_stops_when_idle(private_tmp, tmp_path):
    endpoint = http_server_endpoint(tmp_path / "site")
    log = tmp_path / "serve.log"
    urls, errors = [], []

    def job():
        try:
            with lifecycle.served("m", endpoint, str(log), idle_seconds=1.0) as url:
                with urllib.request.urlopen(url + "/models", timeout=5) as answer:
                    assert json.loads(answer.read())["data"][0]["id"] == "m"
                urls.append(url)
                time.sleep(1.5)  # held: the server must not stop under a job
        except BaseException as error:  # shown by the assertion below
            errors.append(error)

    jobs = [threading.Thread(target=job) for _ in range(3)]
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
    assert not errors and len(set(urls)) == 1
    assert urls[0].startswith("http://127.0.0.1:") and "{port}" not in urls[0]
    assert log.read_text().count("starting: ") == 1  # one command for the three jobs
    files = lifecycle.paths(lifecycle.serve_key(endpoint))
    folder = files["lock"].parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # Idle: the state file goes first, then the command and the supervisor stop.
    assert wait_for(lambda: not files["json"].exists())
    assert wait_for(lambda: lifecycle.lock_is_free(files["lock"]))
    assert "no job for 1 s: stopping the server" in log.read_text()
    with pytest.raises(OSError):
        urllib.request.urlopen(urls[0] + "/models", timeout=2)


def test_the_server_lives_while_a_job_holds_it(private_tmp, tmp_path):
    endpoint = http_server_endpoint(tmp_path / "site")
    with lifecycle.served("m", endpoint, str(tmp_path / "serve.log"), idle_seconds=0.5) as url:
        state = json.loads(lifecycle.paths(lifecycle.serve_key(endpoint))["json"].read_text())
        assert stat.S_IMODE(lifecycle.paths(lifecycle.serve_key(endpoint))["json"].stat().st_mode) == 0o600
        time.sleep(2.5)  # five idle times
        with urllib.request.urlopen(url + "/models", timeout=5) as answer:
            assert answer.status == 200
    assert wait_for(lambda: not alive(state["command_pid"]))


def test_a_command_that_fails_says_why(private_tmp, tmp_path):
    failing = Endpoint.from_settings(
        {
            "base_url": "http://127.0.0.1:{port}/v1",
            "model": "m",
            "serve": {"command": f"{sys.executable} -c 'import sys; print(\"no GPU here\"); sys.exit(3)'"},
        }
    )
    log = tmp_path / "serve.log"
    with pytest.raises(
        EndpointError, match=r"'m': the serve command stopped: it exited with status 3 before answering"
    ):
        with lifecycle.served("m", failing, str(log)):
            pass
    assert "no GPU here" in log.read_text()  # the command's own output, in the serve log
    missing = Endpoint.from_settings(
        {"base_url": "http://127.0.0.1:{port}/v1", "model": "m", "serve": {"command": "no-such-engine serve x"}}
    )
    with pytest.raises(EndpointError, match="cannot run 'no-such-engine'"):
        with lifecycle.served("m", missing, str(log)):
            pass


def test_a_killed_supervisor_is_replaced(private_tmp, tmp_path):
    endpoint = http_server_endpoint(tmp_path / "site")
    log = tmp_path / "serve.log"
    files = lifecycle.paths(lifecycle.serve_key(endpoint))
    with lifecycle.served("m", endpoint, str(log), idle_seconds=30) as first:
        state = json.loads(files["json"].read_text())
    os.kill(state["pid"], signal.SIGKILL)  # the supervisor; its command is left behind
    os.killpg(state["command_pid"], signal.SIGKILL)
    assert wait_for(lambda: lifecycle.lock_is_free(files["lock"]))
    assert files["json"].exists()  # stale: its lock is free
    with lifecycle.served("m", endpoint, str(log), idle_seconds=0.5) as second:
        with urllib.request.urlopen(second + "/models", timeout=5) as answer:
            assert answer.status == 200
    assert log.read_text().count("starting: ") == 2 and first.startswith("http://127.0.0.1:")
