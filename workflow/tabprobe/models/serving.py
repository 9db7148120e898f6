"""One copy of a model in memory for all of its inference jobs on a machine (on a cluster: in one
allocation), so that the jobs of one model do not each pay the start-up.

Why: a fresh inference process spends seconds importing torch and transformers and loading the
weights, and the job then computes for about as long (13-14 s of start-up around 1-3 s of GPU
work on an H100; a third of an inference job's time on a 2-core CPU).

How: the first infer_nli job of a model that finds no server of it starts one (`ask` ->
`_start_unless_running`): a process of its own (model_server.py), which outlives that job. That job and every
later job of the model send their probe file to it and write the answer as their outputs; the
server stops after `IDLE_SECONDS` without a request. The plan does not change: the jobs stay one
per model, probe and split, so adding a probe still runs only that probe's jobs (docs/serving.md says
why this design and not a Snakemake service job).

Which server: one per key, a hash of the checkpoint's version (`checkpoint_identity`), the label
map, the model's kind (classifier or causal LM), the library's inference code, the run (the jobs'
working directory: `run_folder`), the host and the Slurm job. Its files are in a private folder of
the machine's temporary folder ($TMPDIR, which many clusters make per job):
  <key>.lock  held (flock) by the live server; the kernel releases it when the process ends,
              however it ends, so a lock that can be taken means no server is running;
  <key>.json  the address of the live server and the token a request must carry, written once it
              listens; readable by this user alone (0600, in a 0700 folder);
  the server's log is the rule's `server_log` (logs/model_server/<model>.log, appended).

Trust. Only this user's jobs get answers. The socket's address is public (an abstract socket's name
is listed in /proc/net/unix for every local user to read), so it carries no secret: a random name.
The server answers a connection only from a process of its own user (SO_PEERCRED), and only a
request carrying the token of its address file; a job talks only to a server of its own user (a
process of another user could take the name of a server that died). A request is refused unless it
names the checkpoint version, label map and kind the server loaded, and a shard folder of the run
it serves (named as infer_nli names one, resolving, links followed, inside the run's folder or its
results folder), since the server deletes such a folder when its blocks are of other inputs and
writes blocks into it.

Faults. A server killed mid-job closes the connection: the job starts a new server and resumes
from the blocks it saved (inference.ShardStore), ending with the same bytes; a job is not retried by
Snakemake, so an error that cannot go away (a bad checkpoint) fails it once. A job killed
mid-request loses only its answer.
Nothing stale is ever used: on Linux the socket is in the abstract namespace, which vanishes with
the process (elsewhere a file in a fresh private folder per server), an address file whose lock
is free is removed before a new server starts, and a server that cannot load the model exits
with the reason in its log, which the waiting job shows. A job that reaches a server as it stops
(idle: its address gone, its lock not yet released, or killed: its socket not yet closed) starts a
new one; at most two new servers per job replace ones that ended mid-answer.

Protocol, one request per connection: the job sends a length-prefixed JSON request; the server
answers a length-prefixed JSON header, then (on success) the predictions as Parquet bytes,
exactly those `io.write_parquet` writes.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabprobe import code_inputs
from tabprobe.errors import TabprobeError

log = logging.getLogger("tabprobe.models.serving")  # also when run as __main__

# A server with no request for this long stops: long enough to bridge the gaps between one
# model's jobs in a run, short enough not to hold memory (or a GPU) for long after the last one.
IDLE_SECONDS = 30.0
# How long a job waits for a server to listen and load its model (a large checkpoint from a
# network filesystem can take minutes); a server that dies meanwhile ends the wait at once.
START_TIMEOUT_SECONDS = 1800.0
# Set to 0 to make every job load its model itself (debugging; the bytes are the same).
SWITCH = "TABPROBE_MODEL_SERVER"
# What decides a server's answers besides the checkpoint: every library file the jobs' side and the
# server run (their import closure, code_inputs), so a server started by older code is not used
# after an edit of any of them.
SERVER_SIDES = ("models/serving.py", "models/model_server.py")
_LENGTH = struct.Struct(">Q")
STOPPED = "the model server stopped: "


class ServerError(TabprobeError):
    """The model server could not start, ended before answering, or failed a request."""


class _ServerGone(ServerError):
    """The server stopped without an error of its own (idle, or killed): before it took this job
    (`when` "stopped before answering") or while computing its answer ("ended mid-answer")."""

    def __init__(self, message: str, when: str = "stopped before answering"):
        super().__init__(f"the model server {when} ({message})")
        self.when = when


def enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


def checkpoint_identity(checkpoint: str | Path) -> str:
    """Which version of a checkpoint: its folder (or its one file, a GGUF) and the name, size and
    modification time of its files. Cheap (no hashing), so every job can check that a server
    loaded the weights it was given."""
    folder = Path(checkpoint).resolve()
    files = [folder] if folder.is_file() else [p for p in folder.iterdir() if p.is_file()]
    stats = {p.name: p.stat() for p in files}
    entries = sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats.items())
    return json.dumps([str(folder), entries])


def run_folder(run_root: str | Path | None = None) -> Path:
    """The run a job belongs to, links resolved: `run_root`, or the job's working directory
    (Snakemake's, where every rule's outputs are)."""
    return Path(os.path.realpath(run_root if run_root is not None else os.getcwd()))


def server_key(identity: str, label_map, kind: str = "classifier", run_root: str | Path | None = None) -> str:
    digest = hashlib.sha256(json.dumps([identity, label_map, kind, str(run_folder(run_root))], sort_keys=True).encode())
    for name in code_inputs.closure(SERVER_SIDES):
        digest.update((code_inputs.PACKAGE_DIR / name).read_bytes())
    digest.update(f"{socket.gethostname()}|{os.environ.get('SLURM_JOB_ID', '')}".encode())
    return digest.hexdigest()[:20]


def server_folder() -> Path:
    """The folder of this user's servers' locks and addresses, made private (0700) if new. One
    that exists is used only if this user owns it and no one else may enter or write it: on a
    shared machine another user could make it first, hold a server's lock and answer this user's
    jobs with predictions of their own (the address file also holds the server's token)."""
    folder = Path(tempfile.gettempdir()) / f"tabprobe-servers-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = folder.lstat()
    fix = f"remove it (rm -r {folder}) and run again, or set TMPDIR to a folder of your own"
    if not stat.S_ISDIR(found.st_mode):
        raise ServerError(f"{folder}: the model servers' folder is not a folder (a link or a file); {fix}")
    if found.st_uid != os.getuid():
        raise ServerError(
            f"{folder}: the model servers' folder belongs to user id {found.st_uid}, not to you ({os.getuid()}): "
            f"another user could answer your jobs through it; {fix}"
        )
    if stat.S_IMODE(found.st_mode) & 0o077:
        raise ServerError(
            f"{folder}: the model servers' folder is open to others (mode {stat.S_IMODE(found.st_mode):o}): another "
            f"user could answer your jobs through it; make it private (chmod 700 {folder}) or {fix}"
        )
    return folder


# ----------------------------------------------------------------------------- wire format


def peer_uid(conn: socket.socket) -> int | None:
    """The user id of the process at the other end of a connected Unix socket (the kernel's word:
    SO_PEERCRED), or None where the platform has no SO_PEERCRED (there the socket is a file in a
    private folder, which only its user can reach)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    _, uid, _ = struct.unpack("iII", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("iII")))  # struct ucred
    return uid


def same_token(given, token: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), token.encode())


def send_frame(conn: socket.socket, payload: bytes) -> None:
    conn.sendall(_LENGTH.pack(len(payload)) + payload)


def _receive_exactly(conn: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive_frame(conn: socket.socket) -> bytes:
    (size,) = _LENGTH.unpack(_receive_exactly(conn, _LENGTH.size))
    return _receive_exactly(conn, size)


# ----------------------------------------------------------------------------- client


def take_lock(path: Path, shared: bool = False, wait: bool = False) -> int | None:
    """An open descriptor holding a lock on `path` (exclusive unless `shared`), or None when it is
    held and `wait` is false: a live server's lock, or (served models) its users'."""
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
        os.close(fd)  # releases it
    return fd is not None


def start_detached(module: str, arguments: list[str], lock_fd: int, log_file: Path) -> subprocess.Popen:
    """`python -m module arguments` as a process that outlives the job starting it (the model
    server, a served model's supervisor): in a session of its own, inheriting `lock_fd` (the lock it
    holds while it lives), its output appended to `log_file`, this copy of tabprobe first on its path."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    library = str(code_inputs.PACKAGE_DIR.parent)  # the folder holding this copy of tabprobe
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([library, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    with open(log_file, "ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", module, *arguments],
            pass_fds=(lock_fd,),
            start_new_session=True,  # not stopped with the job that started it
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
        )


def _start_unless_running(
    folder: Path,
    key: str,
    checkpoint: str,
    label_map,
    threads: int,
    log_file: Path,
    idle_seconds: float,
    kind: str = "classifier",
    run_root: Path | None = None,
) -> None:
    lock_path, address_file = folder / f"{key}.lock", folder / f"{key}.json"
    fd = take_lock(lock_path)
    if fd is None:
        return  # a server of this key lives (or is starting)
    try:
        address_file.unlink(missing_ok=True)  # left by a server that died
        process = start_detached(
            "tabprobe.models.model_server",
            [
                f"--checkpoint={Path(checkpoint).resolve()}",
                f"--address={address_file}",
                f"--lock-fd={fd}",
                f"--label-map={json.dumps(label_map)}",
                f"--threads={threads}",
                f"--idle={idle_seconds}",
                f"--kind={kind}",
                f"--run-root={run_folder(run_root)}",
            ],
            fd,
            log_file,
        )
        log.info("started a model server for %s (pid %d, log: %s)", checkpoint, process.pid, log_file)
    finally:
        os.close(fd)  # the server's inherited descriptor keeps the lock


def _connect(folder: Path, key: str, identity: str, log_file: Path, timeout: float, log_from: int = 0):
    """A connection to the live server of `key`, waiting while it loads its model. A server that
    stops meanwhile raises ServerError with the reason it logged after byte `log_from` of
    `log_file`, or _ServerGone when it logged none."""
    lock_path, address_file = folder / f"{key}.lock", folder / f"{key}.json"
    deadline = time.monotonic() + timeout
    strangers = set()  # addresses that led to another user's process
    while True:
        info = None
        try:
            info = json.loads(address_file.read_text())
        except (OSError, ValueError):  # not written yet
            pass
        if info is not None and info.get("identity") == identity and info.get("address") not in strangers:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(info["address"].replace("@", "\0", 1) if info["family"] == "abstract" else info["address"])
            except OSError:
                sock.close()
            else:
                owner = peer_uid(sock)
                if owner is None or owner == os.geteuid():
                    return sock, info
                # The server of this address died and a process of another user took its name (it
                # is public): never send it the token or a job. Its lock says whether to start one.
                sock.close()
                strangers.add(info.get("address"))
                log.warning(
                    "the address in %s leads to a process of user id %d, not to this user's server: not used",
                    address_file,
                    owner,
                )
        if lock_is_free(lock_path):
            text = ""
            if log_file.exists():
                with open(log_file, "rb") as logged:
                    logged.seek(log_from)
                    text = logged.read().decode(errors="replace")
            if STOPPED not in text:
                raise _ServerGone(f"its log: {log_file}")
            reason = text[text.rfind(STOPPED) + len(STOPPED) :]
            raise ServerError(f"the model server stopped before answering (its log: {log_file}):\n{reason.strip()}")
        if time.monotonic() > deadline:
            raise ServerError(f"the model server did not answer within {timeout:.0f} s (its log: {log_file})")
        time.sleep(0.1)


def _request(sock, info: dict, checkpoint, probe_path, shard_dir, settings: dict, log_file: Path) -> tuple[dict, bytes]:
    """Send one job to a connected server: its answer's header and body (Parquet bytes, on success).
    `checkpoint` is (name, identity, label map, kind): the server answers only for the model it loaded."""
    name, identity, label_map, kind = checkpoint
    with sock:
        request = {
            "token": info["token"],
            "checkpoint": str(name),
            "identity": identity,
            "label_map": label_map,
            "kind": kind,
            "probe": str(Path(probe_path).resolve()),
            "shard_dir": str(Path(shard_dir).resolve()),
            "settings": settings,
        }
        try:
            send_frame(sock, json.dumps(request).encode())
        except ConnectionError:
            # Connected to a server as it died (a killed one's socket lives on for a moment while
            # the kernel tears the process down, and its lock with it): it never took this job.
            raise _ServerGone(f"pid {info['pid']}", when="closed as this job reached it") from None
        log.info("sent %s to the model server (pid %s, log: %s)", probe_path, info["pid"], log_file)
        try:
            header = json.loads(receive_frame(sock))
            return header, receive_frame(sock) if header.get("ok") else b""
        except ConnectionError:
            raise _ServerGone(
                f"pid {info['pid']}; a new one keeps the blocks already computed", when="ended mid-answer"
            ) from None


def ask(
    checkpoint: str,
    probe_path: str,
    shard_dir: str,
    settings: dict,
    label_map=None,
    threads: int = 1,
    server_log: str | None = None,
    idle_seconds: float | None = None,
    timeout: float = START_TIMEOUT_SECONDS,
    kind: str = "classifier",
    run_root: str | Path | None = None,
) -> tuple[bytes, dict]:
    """Predictions (Parquet bytes) and statistics for one probe file, from the server of this
    checkpoint and run (`run_folder`: the working directory unless `run_root`), started if none is
    running. `shard_dir` must be a shard folder of that run (predict.shard_folder)."""
    started = time.monotonic()
    identity = checkpoint_identity(checkpoint)
    run = run_folder(run_root)
    folder, key = server_folder(), server_key(identity, label_map, kind, run)
    idle_seconds = IDLE_SECONDS if idle_seconds is None else idle_seconds
    log_file = Path(server_log) if server_log else folder / f"{key}.log"
    # A server can vanish without a reason of its own: an idle one stopping as this job reaches it
    # (its address removed, its lock not yet released), or one killed while it computes this
    # job's answer (then the next one resumes from the blocks already saved, ending with the same
    # bytes). A new one is started, up to twice for servers that ended mid-answer; one that vanished
    # before taking the job lost nothing, so it is replaced until `timeout` has passed. A server
    # that stops with a reason (it cannot load the model) or fails the request ends the job at
    # once: a repeat would only fail again, so the rule has no retries of its own.
    restarts_left, deadline = 2, time.monotonic() + timeout
    while True:
        log_from = log_file.stat().st_size if log_file.exists() else 0
        _start_unless_running(folder, key, checkpoint, label_map, threads, log_file, idle_seconds, kind, run)
        try:
            sock, info = _connect(folder, key, identity, log_file, timeout, log_from)
            model = (checkpoint, identity, label_map, kind)
            header, body = _request(sock, info, model, probe_path, shard_dir, settings, log_file)
            break
        except _ServerGone as gone:
            mid_answer = gone.when == "ended mid-answer"
            if (mid_answer and not restarts_left) or time.monotonic() > deadline:
                raise
            restarts_left -= mid_answer
            log.warning("%s: starting a new one", gone)
            time.sleep(0.1)  # lets a dying server's lock and socket go
    if not header["ok"]:
        shown = header["error"] if header["kind"] == "TabprobeError" else f"{header['kind']}: {header['error']}"
        raise ServerError(f"the model server failed this job (its log has the traceback): {shown}")
    stats = header["stats"]
    log.info(
        "inference: %d examples (%d from saved shards) in %.1f s on the server, %.1f s waiting for it, %s on %s",
        stats["examples"],
        stats["resumed_examples"],
        stats["seconds"],
        time.monotonic() - started - stats["seconds"],
        stats["precision"],
        stats["device"],
    )
    return body, stats
