"""A private network for a served model's engine: a Linux network namespace of its own, made by the
supervisor for itself before it starts the engine (tabprobe.models.endpoint.lifecycle says why).
Inside it there is only a loopback interface, which no process outside can reach: the engine's
TCP port is invisible to every other user of the machine (and to every other machine), and the
supervisor bridges it to a Unix socket in its private folder (bridge.py).

An ordinary user makes one inside a user namespace of their own (`unshare -U -n`, with their user
and group ids mapped onto themselves, so the engine runs as them and SO_PEERCRED reports them);
root needs no user namespace. Many clusters forbid unprivileged user namespaces
(user.max_user_namespaces = 0, Debian's kernel.unprivileged_userns_clone = 0, Ubuntu's AppArmor
restriction): `problem()` tries, in a throwaway process, and says why not.

Standard library only, and runnable as a script (`python -I -S namespace.py`): that is the probe,
fast enough for the config check."""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
# The kernel settings that forbid or restrict unprivileged user namespaces, named in a refusal.
SETTINGS = (
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def _unshare(flags: int, what: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def _loopback_up() -> None:
    """Bring up the namespace's loopback interface (a new namespace's is down: 127.0.0.1 unbound)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def enter() -> None:
    """Move this process (single-threaded: the kernel refuses a user namespace to a process with
    threads) into a new network namespace with its loopback up; its children are born in it.
    Raises OSError saying which step the machine refused."""
    if not sys.platform.startswith("linux"):
        raise OSError(f"network namespaces are Linux's; this is {sys.platform}")
    if os.geteuid() == 0:
        _unshare(CLONE_NEWNET, "unshare(CLONE_NEWNET)")
    else:
        uid, gid = os.getuid(), os.getgid()
        _unshare(CLONE_NEWUSER | CLONE_NEWNET, "unshare(CLONE_NEWUSER | CLONE_NEWNET)")
        # Mapped onto themselves: the engine runs as this user; its supplementary groups stay (GPU
        # devices a group may open), though unnamed inside.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    try:
        _loopback_up()
    except OSError as error:
        raise OSError(error.errno, f"bringing up the loopback interface: {error.strerror}") from None


def _settings() -> str:
    found = []
    for path in SETTINGS:
        try:
            found.append(f"{path.removeprefix('/proc/sys/').replace('/', '.')} = {Path(path).read_text().strip()}")
        except OSError:
            pass
    return "; ".join(found)


@functools.cache
def problem() -> str | None:
    """None where this machine lets this user give a process a private network, else why not (the
    refused step and the kernel's settings). Tried in a throwaway process, once per process."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", __file__], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the probe could not run ({error})"
    if done.returncode == 0 and done.stdout.strip() == "ok":
        return None
    why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    settings = _settings()
    return why + (f" ({settings})" if settings else "")


def _probe() -> None:
    try:
        enter()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
    except OSError as error:
        print(error.strerror or error, file=sys.stderr)
        raise SystemExit(1) from None
    print("ok")


if __name__ == "__main__":
    _probe()
