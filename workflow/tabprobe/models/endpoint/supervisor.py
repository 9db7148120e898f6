"""The supervisor of a served model's `serve:` command: runs it, waits until the server lists its
models, writes its address, and stops it once no job has used it for a while (or when it ends by
itself, saying so). Started by a job through tabprobe.models.endpoint.lifecycle, which says why
and how: `python -m tabprobe.models.endpoint.supervisor`."""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from tabprobe.io import write_json
from tabprobe.models.endpoint.lifecycle import STOPPED, free_port, take_lock

log = logging.getLogger("tabprobe.models.endpoint.supervisor")  # also when run as __main__

# How long the command has to end after SIGTERM before it is killed.
STOP_GRACE_S = 30.0


def command_line(command: str, port: int | None) -> list[str]:
    """The command's arguments (split as a shell would, run without one), `{port}` filled in."""
    return [arg.replace("{port}", str(port)) if port is not None else arg for arg in shlex.split(command)]


def answers(base_url: str, key: str | None, timeout: float = 2.0) -> bool:
    """Whether the server lists its models (GET {base_url}/models answers 200)."""
    request = urllib.request.Request(base_url.rstrip("/") + "/models")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


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


def supervise(
    command: str,
    base_url: str,
    state: str,
    users: str,
    idle_seconds: float,
    ready_timeout: float,
    key: str | None,
) -> int:
    """Run the command until it has been idle for `idle_seconds` (no job holds `users`); the exit
    status: 0 for an idle stop, 1 when the command failed or never answered."""
    port = free_port() if "{port}" in command or "{port}" in base_url else None
    url = base_url.replace("{port}", str(port)) if port is not None else base_url
    arguments = command_line(command, port)
    log.info("starting: %s", shlex.join(arguments))
    try:
        # The user's command split into its arguments, run without a shell (nothing in it is expanded).
        process = subprocess.Popen([*arguments], start_new_session=True, stdin=subprocess.DEVNULL)
    except OSError as error:
        log.error("%scannot run %r: %s", STOPPED, arguments[0], error)
        return 1
    stopping = {"asked": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(asked=True))
    try:
        deadline = time.monotonic() + ready_timeout
        while not answers(url, key):
            if process.poll() is not None:
                log.error(
                    "%sit exited with status %s before answering at %s (its output is above)",
                    STOPPED,
                    process.returncode,
                    url,
                )
                return 1
            if time.monotonic() > deadline or stopping["asked"]:
                log.error("%sit did not answer at %s within %.0f s", STOPPED, url, ready_timeout)
                return 1
            time.sleep(0.5)
        write_json({"base_url": url, "pid": os.getpid(), "command_pid": process.pid}, state, private=True)
        log.info("the server answers at %s (command pid %d)", url, process.pid)
        idle_since = None
        while not stopping["asked"]:
            if process.poll() is not None:
                log.error("%sit exited with status %s while serving (its output is above)", STOPPED, process.returncode)
                return 1
            fd = take_lock(Path(users))  # free only while no job holds the server
            if fd is None:
                idle_since = None
            else:
                try:
                    idle_since = idle_since or time.monotonic()
                    if time.monotonic() - idle_since > idle_seconds:
                        # Gone before the lock is let go: a job that takes it next finds no address.
                        Path(state).unlink(missing_ok=True)
                        log.info("no job for %.0f s: stopping the server", idle_seconds)
                        return 0
                finally:
                    os.close(fd)
            time.sleep(0.5)
        log.info("asked to stop")
        return 0
    finally:
        Path(state).unlink(missing_ok=True)
        stop(process)


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tabprobe.models.endpoint.supervisor")
    parser.add_argument("--command", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--lock-fd", type=int, required=True, help="the supervisor's lock, taken by the job")
    parser.add_argument("--idle", type=float, required=True)
    parser.add_argument("--ready-timeout", type=float, required=True)
    parser.add_argument("--api-key-env", default="", help="the name of the variable holding the server's key")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    os.set_inheritable(args.lock_fd, False)  # held while this process lives; the command does not get it
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    raise SystemExit(supervise(args.command, args.base_url, args.state, args.users, args.idle, args.ready_timeout, key))


if __name__ == "__main__":
    _main()
