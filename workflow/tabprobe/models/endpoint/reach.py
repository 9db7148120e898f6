"""How a job reaches a served model, and how it knows the far end is its own: every connection to
a server the workflow started is checked before a byte is sent on it.

- Through the bridge (the engine in a private network, namespace.py): a Unix socket in the
  private server folder; the kernel says which process listens there (SO_PEERCRED), and it must be
  this user's supervisor, the pid of the state file.
- Over TCP (the engine on the machine's network, keyed): the kernel's socket table
  (/proc/net/tcp, tcp6) says which user owns the socket at the other end of the connection; it
  must be this user. A port is anyone's once its server has stopped: another user listening there
  gets a connection and nothing else, neither the key nor a prompt.

A server of the user's own (no `serve:`, a hosted API) is reached as the openai client reaches it,
unchecked: who runs it is the user's word (base_url)."""

from __future__ import annotations

import ipaddress
import os
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

# What a served model's server is open to, as the state file, the log, run.json and the report say.
PRIVATE_NETWORK = "private network"
KEYED = "key"
OPEN = "open to local users"
# As the openai client's own: every request in flight may have its connection.
MAX_CONNECTIONS, KEEPALIVE = 1000, 100


class NotOurs(ConnectionError):
    """A connection whose far end is not this user's server: closed before anything was sent."""


@dataclass(frozen=True)
class Reach:
    """Where a job sends a model's requests: `base_url` (the engine's own URL, also over the bridge,
    where only its path counts), through `socket` (the bridge's) or straight to it; `key`, the one
    the supervisor gave this start of the engine; `pid`, the supervisor's (the bridge's end);
    `verify`, whether connections are checked (a server the workflow started); `access`, what the
    server is open to (PRIVATE_NETWORK, KEYED or OPEN; None for a server of the user's own)."""

    base_url: str
    socket: str | None = None
    key: str | None = None
    pid: int | None = None
    verify: bool = False
    access: str | None = None

    @classmethod
    def of_state(cls, state: dict) -> Reach:
        return cls(
            state["base_url"], state.get("socket"), state.get("key"), state.get("pid"), True, state.get("access")
        )

    def problem(self, sock: socket.socket) -> str | None:
        """None when the far end of connected `sock` is this user's server, else what it is."""
        if not self.verify:
            return None
        if self.socket:
            pid, uid = unix_peer(sock)
            if uid == os.geteuid() and (self.pid is None or pid == self.pid):
                return None
            return f"the socket {self.socket} leads to process {pid} of user id {uid}, not to this user's supervisor"
        uid = tcp_peer_uid(sock)
        if uid is None or uid == os.geteuid():  # None: no socket table to ask (not Linux)
            return None
        host, port = sock.getpeername()[:2]
        return (
            f"the process listening at {host}:{port} belongs to user id {uid}, not to you: the server there is not "
            "yours (yours stopped, and another user took its port); nothing was sent to it"
        )

    def async_client(self, timeout: float):
        """The httpx client for the openai async client: None (its own) for a server of the user's."""
        if not self.verify:
            return None
        import httpcore2
        import httpx2

        transport = httpx2.AsyncHTTPTransport(uds=self.socket)
        transport._pool = httpcore2.AsyncConnectionPool(
            **self._pool_settings(_CheckedAsyncBackend(self, httpcore2.AnyIOBackend()))
        )
        return httpx2.AsyncClient(transport=transport, timeout=timeout)

    def sync_client(self, timeout: float):
        """As async_client, for the openai client (the checks before a job)."""
        if not self.verify:
            return None
        import httpcore2
        import httpx2

        transport = httpx2.HTTPTransport(uds=self.socket)
        transport._pool = httpcore2.ConnectionPool(
            **self._pool_settings(_CheckedBackend(self, httpcore2.SyncBackend()))
        )
        return httpx2.Client(transport=transport, timeout=timeout)

    def _pool_settings(self, backend) -> dict:
        """The connection pool of either client: its limits, the bridge's socket (None over TCP), and the
        network backend that checks each new connection before a byte is sent."""
        return {
            "max_connections": MAX_CONNECTIONS,
            "max_keepalive_connections": KEEPALIVE,
            "uds": self.socket,
            "network_backend": backend,
        }


def connect(reach: Reach, timeout: float) -> socket.socket:
    """A connected, checked socket to the server (raises NotOurs, closed, when it is not ours)."""
    if reach.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(reach.socket)
        except OSError:
            sock.close()
            raise
    else:
        sock = socket.create_connection(host_port(reach.base_url), timeout)
    problem = reach.problem(sock)
    if problem:
        sock.close()
        raise NotOurs(problem)
    return sock


def host_port(base_url: str) -> tuple[str, int]:
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    return parts.hostname or "127.0.0.1", parts.port or (443 if parts.scheme == "https" else 80)


def unix_peer(sock: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of a connected Unix socket, as the kernel says."""
    pid, uid, _ = struct.unpack("iII", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("iII")))
    return pid, uid


def _address(text: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """An address of /proc/net/tcp{,6} ("0100007F:1F90": 32-bit words in host order, port in hex)."""
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    words = b"".join(raw[i : i + 4][::-1] if _LITTLE else raw[i : i + 4] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(words)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address, int(port, 16)


_LITTLE = struct.pack("=I", 1) == struct.pack("<I", 1)


def tcp_peer_uid(sock: socket.socket) -> int | None:
    """The user id owning the socket at the far end of connected TCP socket `sock` (the accepted
    one, which has its listener's owner), from the kernel's socket tables; None where there are
    none to read. Raises NotOurs when the far end is in neither (another machine's, or another
    network namespace's)."""
    ours = ipaddress.ip_address(sock.getsockname()[0]), sock.getsockname()[1]
    theirs = ipaddress.ip_address(sock.getpeername()[0]), sock.getpeername()[1]
    ours, theirs = (_unmapped(a) for a in (ours, theirs))
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not any(t.exists() for t in tables):
        return None
    for table in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if _address(fields[1]) == theirs and _address(fields[2]) == ours:
                return int(fields[7])
    raise NotOurs(f"no socket of this machine is at the other end of the connection to {theirs[0]}:{theirs[1]}")


def _unmapped(address: tuple) -> tuple:
    host, port = address
    if isinstance(host, ipaddress.IPv6Address) and host.ipv4_mapped:
        host = host.ipv4_mapped
    return host, port


class _CheckedBackend:
    """httpcore's network backend whose connections are checked (Reach.problem) before use."""

    def __init__(self, reach: Reach, inner):
        self.reach, self.inner = reach, inner

    def _checked(self, stream):
        problem = self.reach.problem(stream.get_extra_info("socket"))
        if problem:
            stream.close()
            raise NotOurs(problem)
        return stream

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return self._checked(self.inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return self._checked(self.inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _CheckedAsyncBackend:
    """_CheckedBackend for the async client."""

    def __init__(self, reach: Reach, inner):
        self.reach, self.inner = reach, inner

    async def _checked(self, stream):
        problem = self.reach.problem(stream.get_extra_info("socket"))
        if problem:
            await stream.aclose()
            raise NotOurs(problem)
        return stream

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return await self._checked(await self.inner.connect_tcp(host, port, timeout, local_address, socket_options))

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return await self._checked(await self.inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)
