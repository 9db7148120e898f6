"""A server the workflow starts is its user's alone, tried by another local user made for the
test (test_serving's `stranger`: needs root; skips elsewhere, fails where CI=true):

- the real `transformers serve` of a tiny Llama in its private network: the stranger reaches
  neither its port nor its bridge's socket, and gets no byte from the bridge when the socket's
  folder is opened by mistake; a job's answers come through it all the same; the engine's key
  (serve.key_env) is in its environment, not in its command line, and in no file the run wrote;
- a stranger listening on the port of a server of ours that has stopped: the job's check before
  use and a job's own client both connect, see whose process it is, and send it nothing (neither
  a prompt nor the key); the job starts a server of its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
from browser import in_ci
from served import free_port, transformers_serve_command
from test_endpoint_serve import keyed_endpoint, wait_for
from test_endpoint_served import probe_file, run_job  # noqa: F401 (a fixture)
from test_serving import STRANGERS_SERVER, stranger  # noqa: F401 (a fixture)
from tiny_causal import tiny_causal

from tabprobe.models.endpoint import lifecycle, namespace
from tabprobe.models.endpoint.budget import Budget
from tabprobe.models.endpoint.cache import ResponseCache
from tabprobe.models.endpoint.client import EndpointClient
from tabprobe.models.endpoint.reach import KEYED, PRIVATE_NETWORK, Reach, host_port
from tabprobe.models.endpoint.settings import Endpoint, EndpointError

ENGINE_KEY = "TABPROBE_TEST_ENGINE_KEY"


@pytest.fixture
def short_tmp(tmp_path, monkeypatch):
    """The servers' folder in a folder the stranger may pass through (pytest's own is its user's
    alone), short enough for the bridge's socket to sit in it."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="tp-", dir="/tmp"))
    folder.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


# What another user tries: the engine's port on this machine's loopback, then the bridge's socket,
# sending a request on each that connects; what it got, per way in.
STRANGERS_TRIES = r"""
import json, socket, sys
port, path = int(sys.argv[1]), sys.argv[2]
request = b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
def ask(sock):
    sock.settimeout(20)
    sock.sendall(request)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return "answer:" + answer.decode(errors="replace")
tried = {}
for name, family, address in (("port", socket.AF_INET, ("127.0.0.1", port)), ("socket", socket.AF_UNIX, path)):
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.connect(address)
        tried[name] = ask(sock)
    except OSError as error:
        tried[name] = type(error).__name__
    finally:
        sock.close()
print(json.dumps(tried))
"""


def test_another_user_reaches_nothing_of_a_private_server_and_the_key_is_written_nowhere(
    short_tmp,
    tmp_path,
    stranger,  # noqa: F811
    probe_file,  # noqa: F811
):
    if namespace.problem():
        reason = f"this machine gives no private network: {namespace.problem()}"
        pytest.fail(reason) if in_ci() else pytest.skip(reason)
    model = tiny_causal(tmp_path / "tiny-lm", "llama", answers=("true", "neither", "false"))
    command = " ".join(transformers_serve_command(model, "{port}"))
    serve = {"command": command, "key_env": ENGINE_KEY}
    block = {"base_url": "http://127.0.0.1:{port}/v1", "model": str(model), "max_tokens": 3, "serve": serve}
    block["cache"] = str(tmp_path / "cache")
    serve_log = tmp_path / "logs" / "serve.log"
    endpoint = Endpoint.from_settings(block)
    with lifecycle.served("tiny", endpoint, str(serve_log), idle_seconds=1.0) as reach:
        assert reach.access == PRIVATE_NETWORK and reach.socket
        # A job as the rule runs it, on the same server (its own hold on it), through the bridge.
        stats = run_job(tmp_path / "run", probe_file, block, name="tiny")
        assert stats["job"]["requests"] > 0 and stats["endpoint"]["server_access"] == PRIVATE_NETWORK
        state = json.loads(lifecycle.paths(lifecycle.serve_key(endpoint))["json"].read_text())
        engine = state["command_pid"]
        assert reach.key.encode() not in Path(f"/proc/{engine}/cmdline").read_bytes()
        assert f"{ENGINE_KEY}={reach.key}".encode() in Path(f"/proc/{engine}/environ").read_bytes()
        port = str(host_port(reach.base_url)[1])
        tried = json.loads(stranger.run(STRANGERS_TRIES, port, reach.socket).stdout)
        # Nothing listens on the port in this machine's network; the socket's folder is closed to them.
        assert tried == {"port": "ConnectionRefusedError", "socket": "PermissionError"}, tried
        # The folder opened by mistake: the bridge asks the kernel who connected and closes it unread.
        folder = Path(reach.socket).parent
        folder.chmod(0o711)
        os.chmod(reach.socket, 0o666)
        try:
            tried = json.loads(stranger.run(STRANGERS_TRIES, port, reach.socket).stdout)
        finally:
            folder.chmod(0o700)
            os.chmod(reach.socket, 0o600)
        assert tried["socket"] in ("answer:", "ConnectionResetError", "BrokenPipeError"), tried
        key = reach.key
    assert wait_for(lambda: lifecycle.lock_is_free(lifecycle.paths(lifecycle.serve_key(endpoint))["lock"]), 60)
    log = serve_log.read_text()
    assert "refused a connection from process " in log and f"of user id {stranger.uid}: this server answers" in log
    assert "in a private network, through " in log
    written = [p for root in (tmp_path, short_tmp) for p in root.rglob("*") if p.is_file()]
    assert len(written) > 5 and [str(p) for p in written if key.encode() in p.read_bytes()] == []


def test_a_stranger_on_our_old_port_gets_no_request_and_no_key(short_tmp, tmp_path, stranger, caplog):  # noqa: F811
    port = free_port()
    squatter = stranger.start(STRANGERS_SERVER, "tcp", str(port), "15", "3")
    dead_key = "sk-the-dead-servers-key-0123456789"
    endpoint = keyed_endpoint(ENGINE_KEY)
    try:
        assert squatter.stdout.readline().strip() == "listening"
        # Our server stopped; its supervisor has not yet let go of its lock (the test holds it a
        # second), and its state file still names the port the stranger took.
        files = lifecycle.paths(lifecycle.serve_key(endpoint))
        theirs = f"http://127.0.0.1:{port}/v1"
        dead = {"base_url": theirs, "key": dead_key, "pid": 1, "command_pid": 1, "socket": None, "access": KEYED}
        files["json"].write_text(json.dumps(dead))
        held = lifecycle.take_lock(files["lock"])
        releasing = threading.Timer(1.0, os.close, args=(held,))
        releasing.start()
        with lifecycle.served("m", endpoint, str(tmp_path / "serve.log"), idle_seconds=0.2) as reach:
            releasing.join()
            assert reach.base_url != theirs and reach.access == KEYED  # a server of its own, started afresh
        # A job whose server died mid-run, the stranger on its port: its client connects and stops there.
        cache = tmp_path / "cache"
        block = {"base_url": theirs, "model": "m", "max_retries": 0, "cache": str(cache)}
        client = EndpointClient(
            Endpoint.from_settings(block),
            Reach(theirs, key=dead_key, pid=1, verify=True, access=KEYED),
            ResponseCache(cache),
            Budget(None, cache, "m"),
            "m",
        )

        async def ask():
            async with client:
                await client.answer("chat", {"model": "m", "messages": [{"role": "user", "content": "hi"}]})

        with pytest.raises(
            EndpointError, match=rf"failed: the process listening at .* belongs to user id {stranger.uid}, not to you"
        ):
            asyncio.run(ask())
        heard = json.loads(squatter.communicate(timeout=60)[0])
    finally:
        squatter.kill()
    assert heard == {"connections": 2, "received": ""}, heard  # connected twice, sent nothing
    assert caplog.text.count(f"belongs to user id {stranger.uid}, not to you") == 1
