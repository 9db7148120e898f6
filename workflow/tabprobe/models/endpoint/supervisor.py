"""The supervisor of a served model's `serve:` command: decides what its server may be open to
(access.py), moves itself into a private network where it can (namespace.py), runs the command
with a fresh key in its environment where it has one, waits until the server lists its models,
checks that a keyed engine refuses a request without its key, bridges a private one to a Unix
socket (bridge.py), writes where to reach it, and stops it once no job has used it for a while (or
when it ends by itself, saying so). Started by a job through tabprobe.models.endpoint.lifecycle,
which says why and how: `python -m tabprobe.models.endpoint.supervisor`."""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from tabprobe.io import write_json
from tabprobe.models.endpoint import access, namespace
from tabprobe.models.endpoint.bridge import Bridge
from tabprobe.models.endpoint.lifecycle import READY_TIMEOUT_S, STOPPED, free_port, take_lock
from tabprobe.models.endpoint.reach import KEYED, OPEN, PRIVATE_NETWORK, NotOurs, Reach, connect, host_port
from tabprobe.models.endpoint.settings import EndpointError

log = logging.getLogger("tabprobe.models.endpoint.supervisor")  # also when run as __main__

# How long the command has to end after SIGTERM before it is killed.
STOP_GRACE_S = 30.0
# A Unix socket's path has room for 107 bytes; a deeper server folder gets the bridge a fresh
# private folder in /tmp.
SOCKET_PATH_MAX = 100


def command_line(command: str, port: int | None) -> list[str]:
    """The command's arguments (split as a shell would, run without one), `{port}` filled in."""
    return [arg.replace("{port}", str(port)) if port is not None else arg for arg in shlex.split(command)]


def status(url: str, key: str | None, timeout: float = 2.0) -> int | None:
    """The HTTP status of GET {url}/models (None: no answer), on a connection checked to be this
    user's before the key is sent on it."""
    path = urlsplit(url).path.rstrip("/") + "/models"
    host, port = host_port(url)
    try:
        sock = connect(Reach(url, verify=True), timeout)
    except NotOurs as error:
        log.warning("%s", error)
        return None
    except OSError:
        return None
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    connection.sock = sock
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {key}"} if key else {})
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the command's process group (an engine's workers too), SIGKILL after the grace time."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass


def bridge_socket(state: Path) -> Path:
    """Where the bridge listens: beside the state file, in the private server folder, or in a fresh
    private folder where that path is too long for a socket."""
    path = state.with_suffix(".sock")
    if len(str(path)) <= SOCKET_PATH_MAX:
        return path
    return Path(tempfile.mkdtemp(prefix="tabprobe-bridge-", dir="/tmp")) / "s"


def _until_ready(process: subprocess.Popen, url: str, key: str | None, ready_timeout: float, stopping: dict) -> bool:
    deadline = time.monotonic() + ready_timeout
    while status(url, key) != 200:
        if process.poll() is not None:
            log.error(
                "%sit exited with status %s before answering at %s (its output is above)",
                STOPPED,
                process.returncode,
                url,
            )
            return False
        if time.monotonic() > deadline or stopping["asked"]:
            log.error("%sit did not answer at %s within %.0f s", STOPPED, url, ready_timeout)
            return False
        time.sleep(0.5)
    return True


def _serve_until_idle(process: subprocess.Popen, state: Path, users: Path, idle_seconds: float, stopping: dict) -> int:
    idle_since = None
    while not stopping["asked"]:
        if process.poll() is not None:
            log.error("%sit exited with status %s while serving (its output is above)", STOPPED, process.returncode)
            return 1
        fd = take_lock(users)  # free only while no job holds the server
        if fd is None:
            idle_since = None
        else:
            try:
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since > idle_seconds:
                    # Gone before the lock is let go: a job that takes it next finds no address.
                    state.unlink(missing_ok=True)
                    log.info("no job for %.0f s: stopping the server", idle_seconds)
                    return 0
            finally:
                os.close(fd)
        time.sleep(0.5)
    log.info("asked to stop")
    return 0


def supervise(serve: dict, base_url: str, state: Path, users: Path, idle_seconds: float, opened: str) -> int:
    """Run the command until it has been idle for `idle_seconds` (no job holds `users`), open to
    `opened` (access.choose); the exit status: 0 for an idle stop, 1 when the command failed,
    never answered or answered without its key."""
    port = free_port() if "{port}" in serve["command"] or "{port}" in base_url else None
    url = base_url.replace("{port}", str(port)) if port is not None else base_url
    arguments = command_line(serve["command"], port)
    key = secrets.token_urlsafe(32) if serve.get("key_env") else None
    env = dict(os.environ, **({serve["key_env"]: key} if key else {}))
    log.info("starting: %s", shlex.join(arguments))  # the key is in its environment, never here
    try:
        # The user's command split into its arguments, run without a shell (nothing in it is expanded).
        process = subprocess.Popen([*arguments], start_new_session=True, stdin=subprocess.DEVNULL, env=env)
    except OSError as error:
        log.error("%scannot run %r: %s", STOPPED, arguments[0], error)
        return 1
    stopping = {"asked": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(asked=True))
    bridge = None
    try:
        if not _until_ready(process, url, key, float(serve.get("ready_timeout_s") or READY_TIMEOUT_S), stopping):
            return 1
        if opened == KEYED and status(url, None) == 200:
            log.error(
                "%sit answered a request without its key: the engine does not read its key from %s "
                "(serve.key_env; %s; %s), so any user of this machine could use it",
                STOPPED,
                serve["key_env"],
                access.ENGINE_KEYS,
                access.NO_KEY_ENGINES,
            )
            return 1
        if opened == PRIVATE_NETWORK:
            bridge = Bridge(bridge_socket(state), *host_port(url))
            bridge.start()
        where = {"socket": str(bridge.path) if bridge else None, "key": key, "access": opened}
        write_json({"base_url": url, "pid": os.getpid(), "command_pid": process.pid, **where}, state, private=True)
        log.info(
            "the server answers at %s (command pid %d)%s",
            url,
            process.pid,
            f", in a private network, through {bridge.path}" if bridge else f"; open to: {opened}",
        )
        return _serve_until_idle(process, state, users, idle_seconds, stopping)
    finally:
        state.unlink(missing_ok=True)
        if bridge is not None:
            bridge.close()
            if bridge.path.parent.name.startswith("tabprobe-bridge-"):
                shutil.rmtree(bridge.path.parent, ignore_errors=True)
        stop(process)


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tabprobe.models.endpoint.supervisor")
    parser.add_argument("--name", required=True, help="the model's name in config")
    parser.add_argument("--serve", required=True, help="the model's serve: block, as JSON")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--lock-fd", type=int, required=True, help="the supervisor's lock, taken by the job")
    parser.add_argument("--idle", type=float, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    os.set_inheritable(args.lock_fd, False)  # held while this process lives; the command does not get it
    serve = json.loads(args.serve)
    try:
        opened = access.choose(serve)
        if opened == PRIVATE_NETWORK:
            namespace.enter()  # before any thread: the kernel gives a user namespace to a lone thread only
    except (EndpointError, OSError) as error:
        log.error("%s%s", STOPPED, error)
        raise SystemExit(1) from None
    if opened == OPEN:
        log.warning(access.OPEN_WARNING.format(name=args.name))
    raise SystemExit(supervise(serve, args.base_url, Path(args.state), Path(args.users), args.idle, opened))


if __name__ == "__main__":
    _main()
