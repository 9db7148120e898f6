"""The supervisor's bridge from a Unix socket in the private server folder to its engine's TCP
port in the private network (namespace.py): the only way into that network. The socket's folder
is this user's alone (0700), so no one else can even name it; and every connection is asked who
made it (SO_PEERCRED) and closed unread when it is not this user (a process of another user that
got there, were the folder opened by mistake, is logged and gets no byte). The bridge copies bytes
both ways and reads none of them, so it serves every engine and every API alike."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from pathlib import Path

from tabprobe.models.endpoint.reach import unix_peer

log = logging.getLogger("tabprobe.models.endpoint.supervisor")

CHUNK = 1 << 16


class Bridge:
    """Listens on `path` (0600) once made; `start` runs it on a thread of its own, `close` stops it
    and removes the socket."""

    def __init__(self, path: Path, host: str, port: int):
        self.path, self.host, self.port = Path(path), host, port
        self.path.unlink(missing_ok=True)  # a killed supervisor's
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # never, not even for a moment, open to others
        try:
            self.listener.bind(str(self.path))
        finally:
            os.umask(old)
        self.listener.listen(128)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="bridge", daemon=True)
        self.ready = threading.Event()

    def start(self) -> None:
        self.thread.start()
        self.ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_unix_server(self._connection, sock=self.listener))
        self.ready.set()
        self.loop.run_forever()
        self.server.close()
        connections = asyncio.all_tasks(self.loop)
        for task in connections:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*connections, return_exceptions=True))
        self.loop.close()

    def close(self) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
        else:
            self.listener.close()
        self.path.unlink(missing_ok=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        pid, uid = unix_peer(writer.get_extra_info("socket"))
        if uid != os.getuid():
            log.warning(
                "refused a connection from process %d of user id %d: this server answers user id %d alone",
                pid,
                uid,
                os.getuid(),
            )
            writer.close()
            return
        try:
            engine_reader, engine_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()  # the engine is gone: the job sees a dropped connection and the supervisor its exit
            return
        try:
            await asyncio.gather(_copy(reader, engine_writer), _copy(engine_reader, writer))
        finally:
            for end in (writer, engine_writer):
                end.close()


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Bytes from `source` to `sink` until `source` ends, then the end passed on (a half-close, as
    the peers made it); a connection that breaks is closed, which ends the other direction too."""
    try:
        while data := await source.read(CHUNK):
            sink.write(data)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()
    except OSError:
        sink.close()
