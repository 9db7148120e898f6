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
runs (or two users) on one node do not collide. The port itself is open to every user of the
machine, as any TCP port is: on a shared node give the engine a key (vLLM's and llama-server's
`--api-key`, read from the variable api_key_env names) so that others cannot use it.

Files, in $TMPDIR/tabprobe-servers-<uid>/ (0700): <key>.serve.lock (the live supervisor's),
<key>.serve.users (the jobs' shared locks), <key>.serve.json (the server's address, 0600, once it
answers). The command's output and the supervisor's go to logs/serve/<model>.log.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tabprobe import code_inputs
from tabprobe.models.endpoint.settings import Endpoint, EndpointError
from tabprobe.models.serving import IDLE_SECONDS, server_folder

log = logging.getLogger(__name__)

# Written by the supervisor before it exits for a reason of its own; what follows is shown to the
# waiting jobs.
STOPPED = "the serve command stopped: "
READY_TIMEOUT_S = 1800.0


def serve_key(endpoint: Endpoint) -> str:
    """Which server: the command and base_url, on this host and in this Slurm job."""
    text = json.dumps(
        [endpoint.serve["command"], endpoint.base_url, socket.gethostname(), os.environ.get("SLURM_JOB_ID", "")]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def paths(key: str, folder: Path | None = None) -> dict[str, Path]:
    folder = folder or server_folder()
    return {name: folder / f"{key}.serve.{name}" for name in ("lock", "users", "json")}


def take_lock(path: Path, shared: bool = False, wait: bool = False) -> int | None:
    """An open descriptor holding a lock on `path` (exclusive unless `shared`), or None when it is
    held and `wait` is false."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB))
        return fd
    except BlockingIOError:
        os.close(fd)
        return None


def lock_is_free(path: Path) -> bool:
    fd = take_lock(path)
    if fd is not None:
        os.close(fd)
    return fd is not None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(endpoint: Endpoint, files: dict[str, Path], log_file: Path, idle_seconds: float) -> bool:
    """Start a supervisor unless one lives (or is starting); whether this call started it."""
    fd = take_lock(files["lock"])
    if fd is None:
        return False
    try:
        files["json"].unlink(missing_ok=True)  # left by a supervisor that was killed
        log_file.parent.mkdir(parents=True, exist_ok=True)
        library = str(code_inputs.PACKAGE_DIR.parent)
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join([library, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        )
        with open(log_file, "ab") as output:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tabprobe.models.endpoint.supervisor",
                    f"--command={endpoint.serve['command']}",
                    f"--base-url={endpoint.base_url}",
                    f"--state={files['json']}",
                    f"--users={files['users']}",
                    f"--lock-fd={fd}",
                    f"--idle={idle_seconds}",
                    f"--ready-timeout={endpoint.serve.get('ready_timeout_s') or READY_TIMEOUT_S}",
                    # The key's variable's name: the supervisor reads the key from its environment.
                    f"--api-key-env={endpoint.api_key_env or ''}",
                ],
                pass_fds=(fd,),
                start_new_session=True,  # not stopped with the job that started it
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=env,
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
) -> Iterator[str]:
    """The base URL to send the model's requests to, for the duration of the `with`: the config's,
    or, for a model with a `serve:` command, that of its server, started if none is running and
    held (not stopped) until the `with` ends."""
    if not endpoint.serve or is_offline:
        yield endpoint.base_url
        return
    files = paths(serve_key(endpoint))
    log_path = Path(log_file) if log_file else files["lock"].with_suffix(".log")
    users = take_lock(files["users"], shared=True, wait=True)  # held: the server is not stopped under us
    try:
        yield _wait_for_server(name, endpoint, files, log_path, idle_seconds)
    finally:
        os.close(users)


def _wait_for_server(name: str, endpoint: Endpoint, files: dict[str, Path], log_path: Path, idle: float) -> str:
    """The base URL of the model's live server, starting one if none lives; the supervisor's reason
    (its command failed) raised if it stops first."""
    timeout = float(endpoint.serve.get("ready_timeout_s") or READY_TIMEOUT_S)
    deadline = time.monotonic() + timeout
    log_from = log_path.stat().st_size if log_path.exists() else 0
    started = False
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
            _start(endpoint, files, log_path, idle)
            started = True
        elif state is not None:
            return state["base_url"]
        if time.monotonic() > deadline:
            raise EndpointError(
                f"served model {name!r}: its serve command did not answer at {endpoint.base_url} within "
                f"{timeout:.0f} s (serve.ready_timeout_s; its log: {log_path})"
            )
        time.sleep(0.2)
