"""A served model's `serve:` command (tabprobe.models.endpoint.lifecycle): started once for the
jobs that need it, on a free port, waited on until it lists its models, kept while a job holds it,
stopped when idle; a command that fails says why; a killed supervisor is replaced; a keyed engine
that answers without its key is stopped; a server open to every local user says so. The command
here is Python's own HTTP server serving a folder with a v1/models file (or tests/keyed_stand_in.py,
which checks a key): a real process that answers GET /v1/models, which is all the lifecycle asks
of a server (test_endpoint_workflow.py runs `transformers serve` through it, and
test_endpoint_private.py another local user against it). The servers here run in a private
network where the machine allows one, else open to local users, which these configs accept."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from browser import in_ci

from tabprobe.models.endpoint import lifecycle
from tabprobe.models.endpoint.reach import KEYED, OPEN, PRIVATE_NETWORK, Reach, connect
from tabprobe.models.endpoint.settings import Endpoint, EndpointError
from tabprobe.report.served import served_description

KEYED_STAND_IN = Path(__file__).with_name("keyed_stand_in.py")


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
    serve = {"command": command, "open_to_local_users": True, **serve}
    return Endpoint.from_settings({"base_url": "http://127.0.0.1:{port}/v1", "model": "m", "serve": serve})


def listed(reach: Reach) -> list[str]:
    """The models the server lists, asked as a job asks (through the bridge, connections checked)."""
    with reach.sync_client(5) as client:
        answer = client.get(reach.base_url + "/models")
    assert answer.status_code == 200
    return [m["id"] for m in answer.json()["data"]]


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
            with lifecycle.served("m", endpoint, str(log), idle_seconds=1.0) as reach:
                assert listed(reach) == ["m"]
                urls.append(reach)
                time.sleep(1.5)  # held: the server must not stop under a job
        except BaseException as error:  # shown by the assertion below
            errors.append(error)

    jobs = [threading.Thread(target=job) for _ in range(3)]
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
    assert not errors and len(set(urls)) == 1
    assert urls[0].base_url.startswith("http://127.0.0.1:") and "{port}" not in urls[0].base_url
    assert log.read_text().count("starting: ") == 1  # one command for the three jobs
    files = lifecycle.paths(lifecycle.serve_key(endpoint))
    folder = files["lock"].parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # Idle: the state file goes first, then the command and the supervisor stop.
    assert wait_for(lambda: not files["json"].exists())
    assert wait_for(lambda: lifecycle.lock_is_free(files["lock"]))
    assert "no job for 1 s: stopping the server" in log.read_text()
    with pytest.raises(OSError):
        connect(urls[0], timeout=2)


def test_the_server_lives_while_a_job_holds_it(private_tmp, tmp_path):
    endpoint = http_server_endpoint(tmp_path / "site")
    with lifecycle.served("m", endpoint, str(tmp_path / "serve.log"), idle_seconds=0.5) as reach:
        state = json.loads(lifecycle.paths(lifecycle.serve_key(endpoint))["json"].read_text())
        assert stat.S_IMODE(lifecycle.paths(lifecycle.serve_key(endpoint))["json"].stat().st_mode) == 0o600
        time.sleep(2.5)  # five idle times
        assert listed(reach) == ["m"]
    assert wait_for(lambda: not alive(state["command_pid"]))


def test_a_command_that_fails_says_why(private_tmp, tmp_path):
    failing = Endpoint.from_settings(
        {
            "base_url": "http://127.0.0.1:{port}/v1",
            "model": "m",
            "serve": {
                "command": f"{sys.executable} -c 'import sys; print(\"no GPU here\"); sys.exit(3)'",
                "open_to_local_users": True,
            },
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
        {
            "base_url": "http://127.0.0.1:{port}/v1",
            "model": "m",
            "serve": {"command": "no-such-engine serve x", "open_to_local_users": True},
        }
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
        assert listed(second) == ["m"]
    assert log.read_text().count("starting: ") == 2 and first.base_url.startswith("http://127.0.0.1:")


def keyed_endpoint(variable: str, **serve) -> Endpoint:
    """tests/keyed_stand_in.py on the machine's network (no private one), keyed by serve.key_env;
    `variable` is the one the stand-in reads its key from ("-": none, it answers anyone)."""
    command = f"{sys.executable} {KEYED_STAND_IN} {{port}} {variable}"
    serve = {"command": command, "key_env": "TABPROBE_TEST_ENGINE_KEY", "private_network": False, **serve}
    return Endpoint.from_settings({"base_url": "http://127.0.0.1:{port}/v1", "model": "m", "serve": serve})


def test_a_keyed_server_gets_a_fresh_key_and_one_that_ignores_it_is_stopped(private_tmp, tmp_path):
    log = tmp_path / "serve.log"
    lock = lifecycle.paths(lifecycle.serve_key(keyed_endpoint("TABPROBE_TEST_ENGINE_KEY")))["lock"]
    keys = []
    for _ in range(2):  # two starts, two keys
        with lifecycle.served("m", keyed_endpoint("TABPROBE_TEST_ENGINE_KEY"), str(log), idle_seconds=0.2) as reach:
            assert reach.access == KEYED and reach.socket is None and len(reach.key) >= 40
            with reach.sync_client(5) as client:  # the key opens it; nothing else does
                assert client.get(reach.base_url + "/models").status_code == 401
                headers = {"Authorization": f"Bearer {reach.key}"}
                assert client.get(reach.base_url + "/models", headers=headers).status_code == 200
            keys.append(reach.key)
        assert wait_for(lambda: lifecycle.lock_is_free(lock))
    assert keys[0] != keys[1] and not any(k in log.read_text() for k in keys)
    with pytest.raises(EndpointError, match=r"answered a request without its key: .* TABPROBE_TEST_ENGINE_KEY"):
        with lifecycle.served("m", keyed_endpoint("-"), str(log)):
            pass


def test_a_server_open_to_local_users_says_so(private_tmp, tmp_path, caplog):
    endpoint = http_server_endpoint(tmp_path / "site", private_network=False)
    log = tmp_path / "serve.log"
    with lifecycle.served("m", endpoint, str(log), idle_seconds=0.2) as reach:
        assert reach.access == OPEN and listed(reach) == ["m"]
    assert "is open to every user of this machine (serve.open_to_local_users: true)" in log.read_text()
    assert "its server is open to local users (serve.open_to_local_users)" in caplog.text
    # And the report, from what the job records (job_statistics' server_access).
    described = {"model": "m", "api": "chat", "shots": 0, "scoring": "generate", "server_access": OPEN}
    described["verbalisers"] = {"E": "True", "N": "Neither", "C": "False"}
    assert "its server was open to every user of its machine (serve.open_to_local_users: true)" in (
        served_description(described)
    )
    assert "open to every user" not in served_description({**described, "server_access": PRIVATE_NETWORK})


def test_a_private_server_is_reached_through_its_bridge_alone(private_tmp, tmp_path):
    from tabprobe.models.endpoint import namespace

    if namespace.problem():
        reason = f"this machine gives no private network: {namespace.problem()}"
        pytest.fail(reason) if in_ci() else pytest.skip(reason)
    endpoint = http_server_endpoint(tmp_path / "site")
    with lifecycle.served("m", endpoint, str(tmp_path / "serve.log"), idle_seconds=0.2) as reach:
        assert reach.access == PRIVATE_NETWORK and listed(reach) == ["m"]
        assert stat.S_IMODE(os.stat(reach.socket).st_mode) == 0o600
        with pytest.raises(ConnectionRefusedError):  # the engine's port, from this machine's network
            connect(Reach(reach.base_url), timeout=2)
