"""A served model's own server, started by the workflow: the `serve:` command (`vllm serve MODEL
--tensor-parallel-size 4`, `llama-server -m model.gguf --port {port}`, `transformers serve DIR
--port {port}`), run once per model on a machine (on Slurm: inside the model's one submission)
and stopped when the model's jobs are done, as the model server of in-process models is
(tabprobe.models.serving, whose private folder of locks and addresses this shares).

How: the first query_endpoint job of the model that finds no live server starts a supervisor
(python -m tabprobe.models.endpoint.supervisor), a process of its own that outlives the job: it
runs the command in a process group of its own, waits until the server lists its models, writes
the server's address to a state file, and stops the command once no job has used it for
`serving.IDLE_SECONDS`. Every job holds a shared lock on the server's `users` file while it
works; the supervisor stops only when it can take that lock exclusively (no job holds it) and has
been able to for the idle time, removing the state file first, so a job never gets the address
of a server that is stopping. The kernel releases every lock of a process that ends however it
ends, so a killed job stops holding the server, and a killed supervisor's lock is free: its state
file is then known stale and a new supervisor starts.

`{port}` in the command and in base_url is a free port the supervisor picks on 127.0.0.1, so two
runs (or two users) on one node do not collide.

Other users (a shared login or compute node): a TCP port is open to every user of the machine, who
could use the model (a GPU job of ours), or take the port once our server has stopped and answer
our jobs. So the server is private (access.py): where the machine allows it the engine runs in a
network of its own (namespace.py) that only the supervisor's bridge, a Unix socket in the private
folder, leads into (bridge.py); else the engine gets a fresh key for each start in its environment
(serve.key_env); else the config is refused unless it says serve.open_to_local_users. And every
connection of a job is checked to lead to this user's server before anything is sent on it
(reach.py): a job never sends a prompt or the key to a process of someone else's, and never takes
its answers.

Files, in $TMPDIR/tabprobe-servers-<uid>/ (0700): <key>.serve.lock (the live supervisor's),
<key>.serve.users (the jobs' shared locks), <key>.serve.json (how to reach the server and its key,
0600, once it answers), <key>.serve.sock (the bridge's socket, 0600). The command's output and the
supervisor's go to logs/serve/<model>.log; the key goes to neither.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from tabprobe.models.endpoint.reach import OPEN, NotOurs, Reach, connect
from tabprobe.models.endpoint.settings import Endpoint, EndpointError
from tabprobe.models.serving import IDLE_SECONDS, lock_is_free, server_folder, start_detached, take_lock

log = logging.getLogger(__name__)

# Written by the supervisor before it exits for a reason of its own; what follows is shown to the
# waiting jobs.
STOPPED = "the serve command stopped: "
READY_TIMEOUT_S = 1800.0


def serve_key(endpoint: Endpoint) -> str:
    """Which server: the serve block (its command, and what it may be open to) and base_url, on
    this host and in this Slurm job."""
    text = json.dumps(
        [dict(endpoint.serve), endpoint.base_url, socket.gethostname(), os.environ.get("SLURM_JOB_ID", "")],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def paths(key: str, folder: Path | None = None) -> dict[str, Path]:
    folder = folder or server_folder()
    return {name: folder / f"{key}.serve.{name}" for name in ("lock", "users", "json")}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(name: str, endpoint: Endpoint, files: dict[str, Path], log_file: Path, idle_seconds: float) -> bool:
    """Start a supervisor unless one lives (or is starting); whether this call started it."""
    fd = take_lock(files["lock"])
    if fd is None:
        return False
    try:
        files["json"].unlink(missing_ok=True)  # left by a supervisor that was killed
        process = start_detached(
            "tabprobe.models.endpoint.supervisor",
            [
                f"--name={name}",
                f"--serve={json.dumps(dict(endpoint.serve))}",  # no secret: the key is the supervisor's to make
                f"--base-url={endpoint.base_url}",
                f"--state={files['json']}",
                f"--users={files['users']}",
                f"--lock-fd={fd}",
                f"--idle={idle_seconds}",
            ],
            fd,
            log_file,
        )
        log.info("started the serve command of %s (supervisor pid %d, log: %s)", endpoint.model, process.pid, log_file)
        return True
    finally:
        os.close(fd)  # the supervisor's inherited descriptor keeps the lock


def _reason(log_file: Path, log_from: int) -> str | None:
    if not log_file.exists():
        return None
    with open(log_file, "rb") as logged:
        logged.seek(log_from)
        text = logged.read().decode(errors="replace")
    return text[text.rfind(STOPPED) + len(STOPPED) :].strip() if STOPPED in text else None


@contextlib.contextmanager
def served(
    name: str,
    endpoint: Endpoint,
    log_file: str | None,
    is_offline: bool = False,
    idle_seconds: float = IDLE_SECONDS,
) -> Iterator[Reach]:
    """Where to send the model's requests, for the duration of the `with`: the config's base_url,
    or, for a model with a `serve:` command, its server, started if none is running and held (not
    stopped) until the `with` ends."""
    if not endpoint.serve or is_offline:
        yield Reach(endpoint.base_url)
        return
    files = paths(serve_key(endpoint))
    log_path = Path(log_file) if log_file else files["lock"].with_suffix(".log")
    users = take_lock(files["users"], shared=True, wait=True)  # held: the server is not stopped under us
    try:
        yield _wait_for_server(name, endpoint, files, log_path, idle_seconds)
    finally:
        os.close(users)


def _wait_for_server(name: str, endpoint: Endpoint, files: dict[str, Path], log_path: Path, idle: float) -> Reach:
    """How to reach the model's live server, starting one if none lives; the supervisor's reason
    (its command failed, or the config cannot have a private server here) raised if it stops first.
    A state file whose address leads to a process of another user (a server of ours stopped, a
    stranger took its port, and the supervisor has not yet let go of its lock) is not used."""
    timeout = float(endpoint.serve.get("ready_timeout_s") or READY_TIMEOUT_S)
    deadline = time.monotonic() + timeout
    log_from = log_path.stat().st_size if log_path.exists() else 0
    started = False
    strangers = set()
    while True:
        try:
            state = json.loads(files["json"].read_text())
        except (OSError, ValueError):
            state = None  # not written yet (the server is starting), or none
        if lock_is_free(files["lock"]):
            reason = _reason(log_path, log_from)
            if reason is not None:
                raise EndpointError(f"served model {name!r}: {STOPPED}{reason} (its log: {log_path})")
            if started:
                raise EndpointError(
                    f"served model {name!r}: the serve command's supervisor ended without saying why (its log: {log_path})"
                )
            # None lives (an idle one stopped, or a killed one left its state file): start one. A job
            # that starts one at the same moment loses the lock to it and waits for the same server.
            _start(name, endpoint, files, log_path, idle)
            started = True
        elif state is not None and json.dumps(state, sort_keys=True) not in strangers:
            reach = Reach.of_state(state)
            try:
                connect(reach, timeout=5.0).close()
            except NotOurs as error:
                strangers.add(json.dumps(state, sort_keys=True))
                log.warning("served model %r: %s: not used", name, error)
            except OSError:
                pass  # it is stopping (its supervisor still holds the lock): wait for that
            else:
                if reach.access == OPEN:
                    log.warning("served model %r: its server is %s (serve.open_to_local_users)", name, OPEN)
                return reach
        if time.monotonic() > deadline:
            raise EndpointError(
                f"served model {name!r}: its serve command did not answer at {endpoint.base_url} within "
                f"{timeout:.0f} s (serve.ready_timeout_s; its log: {log_path})"
            )
        time.sleep(0.2)
