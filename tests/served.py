"""Real servers of the OpenAI-compatible API for the served-model tests, and a fault-injecting
proxy to put in front of one.

- `transformers serve` (transformers' `serving` extra) serving a local safetensors folder: chat
  and completions, no log-probabilities (it ignores `logprobs` and `echo` without an error).
- llama.cpp through llama-cpp-python's server (`pip install 'llama-cpp-python[server]'`, built from
  source: about 17 minutes on these 2 cores, so CI does not build it and these tests skip there):
  chat and completions with log-probabilities, echo included (prompt log-probabilities).
- FaultProxy: an HTTP proxy on 127.0.0.1 that answers chosen requests itself, with a 429 and a
  Retry-After, a 500, a slow answer (past the client's timeout) or a dropped connection, and
  passes the rest to the real server; it records every request it saw and when.

Every server listens on 127.0.0.1 on a free port and is stopped by its fixture (its process group).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_listed(
    base_url: str, process: subprocess.Popen, log: Path, timeout: float = 300.0, key: str | None = None
) -> None:
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(base_url + "/models", headers={"Authorization": f"Bearer {key}"} if key else {})
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(request, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the server did not answer within {timeout} s:\n{log.read_text()[-3000:]}")


@dataclass
class Server:
    base_url: str
    model: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def transformers_serve_command(folder: Path, port: int | str) -> list[str]:
    """`transformers serve` of a local folder, preloaded, on the CPU."""
    return [
        str(Path(sys.executable).with_name("transformers")),
        "serve",
        str(folder),
        "--port",
        str(port),
        "--device",
        "cpu",
    ]


def start(command: list[str], base_url: str, model: str, log: Path, key: str | None = None) -> Server:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, env=env
        )
    server = Server(base_url, model, process, log)
    try:
        wait_until_listed(base_url, process, log, key=key)
    except BaseException:
        server.stop()
        raise
    return server


def transformers_serve(folder: Path, log: Path) -> Server:
    port = free_port()
    return start(transformers_serve_command(folder, port), f"http://127.0.0.1:{port}/v1", str(folder), log)


def llama_cpp_available() -> bool:
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        return False
    return True


def llama_cpp_serve(gguf: Path, log: Path, alias: str = "tiny", api_key: str | None = None) -> Server:
    """llama-cpp-python's server of a GGUF file (every position's logits kept: echo's log-probabilities)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        alias,
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        "1",
        "--logits_all",
        "true",
        *(["--api_key", api_key] if api_key else []),
    ]
    return start(command, f"http://127.0.0.1:{port}/v1", alias, log, key=api_key)


# ----------------------------------------------------------------------------- fault proxy


@dataclass
class Seen:
    method: str
    path: str
    at: float
    fault: str | None
    authorization: str | None


@dataclass
class FaultProxy:
    """A proxy to `upstream` (host:port) whose POSTs meet `faults` in order, one each ("429",
    "500", "slow", "drop", or None to pass), then pass."""

    upstream: str
    faults: list = field(default_factory=list)
    retry_after: float = 2.0
    slow_seconds: float = 3.0
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                proxy._handle(self, None)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                proxy._handle(self, self.rfile.read(length))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def posts(self) -> list[Seen]:
        return [s for s in self.seen if s.method == "POST"]

    def _handle(self, handler: BaseHTTPRequestHandler, body: bytes | None) -> None:
        with self.lock:
            fault = self.faults.pop(0) if body is not None and self.faults else None
            self.seen.append(
                Seen(
                    "GET" if body is None else "POST",
                    handler.path,
                    time.monotonic(),
                    fault,
                    handler.headers.get("Authorization"),
                )
            )
        if fault == "drop":
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault in ("429", "500"):
            payload = json.dumps({"error": {"message": f"injected {fault}", "type": "injected"}}).encode()
            handler.send_response(int(fault))
            if fault == "429":
                handler.send_header("Retry-After", str(self.retry_after))
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        if fault == "slow":
            time.sleep(self.slow_seconds)
        host, port = self.upstream.split(":")
        upstream = http.client.HTTPConnection(host, int(port), timeout=600)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
        try:
            upstream.request(handler.command, handler.path, body=body, headers=headers)
            answer = upstream.getresponse()
            payload = answer.read()
            handler.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    handler.send_header(key, value)
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:
            handler.close_connection = True  # the client left (timed out) while the answer was slow
        finally:
            upstream.close()
