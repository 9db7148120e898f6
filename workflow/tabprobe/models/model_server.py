"""The model server's process: one loaded model answering the inference jobs of that model, each
request on a thread of its own, until it has been idle for a while. Started by a job through
`serving.ask` (`python -m tabprobe.models.model_server`); why and how, the protocol and the faults are
in serving.py, the jobs' side."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from tabprobe import code_inputs, layout
from tabprobe.errors import TabprobeError
from tabprobe.models.serving import (
    IDLE_SECONDS,
    STOPPED,
    ServerError,
    checkpoint_identity,
    peer_uid,
    receive_frame,
    same_token,
    send_frame,
)

log = logging.getLogger("tabprobe.models.model_server")  # also when run as __main__


def _listen() -> tuple[socket.socket, str, str]:
    """A listening Unix socket that no earlier server can have left behind. On Linux an abstract
    one, whose name every local user can list (/proc/net/unix): a random name, which grants nothing
    (the token is in the private address file, and `serve` answers its own user alone)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if sys.platform.startswith("linux"):
        family, address = "abstract", f"\0tabprobe-server-{secrets.token_hex(8)}"
    else:
        family, address = "path", str(Path(tempfile.mkdtemp(prefix="tabprobe-")) / "socket")
    sock.bind(address)
    sock.listen(socket.SOMAXCONN)
    return sock, family, address


class _Model:
    """What this server loaded and for which run: what every request must match."""

    def __init__(self, loaded, checkpoint: str, identity: str, label_map, kind: str, run_root: str):
        self.loaded, self.checkpoint, self.identity = loaded, checkpoint, identity
        self.label_map, self.kind = label_map, kind
        self.run_root = Path(os.path.realpath(run_root))
        # Where this run's shard folders may be: in the run's folder, or in its results folder
        # wherever that links to (clusters often keep results on a scratch filesystem).
        self.shard_areas = (self.run_root, Path(os.path.realpath(self.run_root / layout.RESULTS)))

    def check(self, request: dict) -> Path:
        """Refuse a request this server must not answer; the shard folder it may touch, resolved."""
        from tabprobe.models.predict import is_shard_folder

        mine = (self.identity, self.label_map, self.kind)
        if (request.get("identity"), request.get("label_map"), request.get("kind")) != mine:
            raise ServerError(
                f"this server answers for {self.checkpoint} (label map {self.label_map}, {self.kind}) as it loaded it, "
                f"not for {request.get('checkpoint')} (label map {request.get('label_map')}, {request.get('kind')}) "
                "in another version or with other settings: start the job again (it finds or starts the right server)"
            )
        named = str(request["shard_dir"])
        resolved = Path(os.path.realpath(named))
        if not is_shard_folder(resolved):
            raise ServerError(
                f"{named}: not a shard folder of an infer_nli job (.<output>.shards beside its output, "
                f"predict.shard_folder); this server deletes and writes no other folder"
            )
        if not any(resolved.is_relative_to(area) for area in self.shard_areas):
            raise ServerError(
                f"{named}: the shard folder resolves to {resolved}, outside the run this server serves "
                f"({self.run_root}); it deletes and writes shard folders of that run alone. Run the job from "
                "its run's folder (Snakemake's working directory), where its outputs are"
            )
        return resolved


class _Activity:
    """Requests in progress and the time the last one ended, for the idle stop."""

    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0
        self.last = time.monotonic()

    def begin(self) -> None:
        with self.lock:
            self.active += 1

    def end(self) -> None:
        with self.lock:
            self.active -= 1
            self.last = time.monotonic()

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.active else time.monotonic() - self.last


def serve(
    checkpoint: str,
    address_file: str,
    label_map=None,
    threads: int = 1,
    idle_seconds: float = IDLE_SECONDS,
    kind: str = "classifier",
    run_root: str | None = None,
) -> None:
    """Load `checkpoint` once and answer inference requests, each on a thread of its own (jobs
    running side by side compute side by side, as they did in their own processes), until no
    request came for `idle_seconds`: requests from processes of this server's own user, carrying
    its token, for the checkpoint it loaded and shard folders of the run `run_root` (default: the
    working directory). The caller holds the server's lock for the whole call."""
    import torch

    from tabprobe.io import write_json
    from tabprobe.models import predict

    token = secrets.token_hex(16)
    sock, family, address = _listen()
    try:
        # torch's intra-op threads per request: what one job had in its own process.
        torch.set_num_threads(max(1, threads))
        loaded = predict.load_model(checkpoint, label_map, kind)
        identity = checkpoint_identity(checkpoint)
        model = _Model(loaded, checkpoint, identity, label_map, kind, run_root or os.getcwd())
        write_json(
            {
                "family": family,
                "address": address.replace("\0", "@"),
                "pid": os.getpid(),
                "checkpoint": str(Path(checkpoint).resolve()),
                "identity": identity,
                "run": str(model.run_root),
                "token": token,
            },
            address_file,
            private=True,  # it holds the token that a request must carry
        )
        log.info(
            "serving %s on %s (pid %d, %d threads per request) for the run in %s",
            checkpoint,
            model.loaded.device,
            os.getpid(),
            threads,
            model.run_root,
        )
        activity = _Activity()
        sock.settimeout(1.0)
        while True:
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                if activity.idle_for() > idle_seconds:
                    log.info("no request for %.0f s: stopping", idle_seconds)
                    return
                continue
            caller = peer_uid(conn)
            if caller is not None and caller != os.geteuid():
                # Not a word to it: whoever it is may not learn what this server serves.
                log.warning(
                    "refused a connection from user id %d: this server answers user id %d alone", caller, os.geteuid()
                )
                conn.close()
                continue
            activity.begin()
            threading.Thread(target=_answer, args=(conn, model, token, threads, activity), daemon=True).start()
    finally:
        sock.close()
        Path(address_file).unlink(missing_ok=True)
        if family == "path":
            Path(address).unlink(missing_ok=True)
            Path(address).parent.rmdir()


def _answer(conn: socket.socket, model: _Model, token: str, threads: int, activity: _Activity) -> None:
    """Run one request and send its answer; a job killed meanwhile only loses its answer."""
    from tabprobe import schemas
    from tabprobe.io import parquet_bytes
    from tabprobe.models import predict

    started = time.monotonic()
    try:
        with conn:
            try:
                request = json.loads(receive_frame(conn))
                if not same_token(request.get("token"), token):
                    raise ServerError("the request does not carry this server's token")
                shard_dir = model.check(request)
                table, stats = predict.predict_file(
                    model.loaded, model.checkpoint, request["probe"], shard_dir, **request["settings"]
                )
                # The checkpoint as the job names it (relative to its run, as a job that loads the
                # model itself records it), not as this server opened it.
                stats.update(threads=threads, checkpoint=request["checkpoint"])
                header, body = {"ok": True, "stats": stats}, parquet_bytes(table, schemas.PREDICTIONS)
                log.info("%s: %d examples in %.1f s", request["probe"], stats["examples"], time.monotonic() - started)
            except Exception as error:  # the job shows the error; the server goes on with the others
                log.exception("a request failed")
                kind = "TabprobeError" if isinstance(error, TabprobeError) else type(error).__name__
                header, body = {"ok": False, "error": str(error), "kind": kind}, b""
            try:
                send_frame(conn, json.dumps(header).encode())
                if header["ok"]:
                    send_frame(conn, body)
            except OSError as error:
                log.warning("could not answer a job (killed meanwhile?): %s", error)
    finally:
        activity.end()


def _main(argv: list[str] | None = None) -> None:
    """The server process, as `_start_unless_running` starts it."""
    parser = argparse.ArgumentParser(prog="python -m tabprobe.models.model_server")
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument(
        "--lock-fd", type=int, required=True, help="the server's lock, taken by the job that started it"
    )
    parser.add_argument("--label-map", default="null")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--idle", type=float, default=IDLE_SECONDS)
    parser.add_argument("--kind", default="classifier", help="classifier or causal (a prompted language model)")
    parser.add_argument("--run-root", default=None, help="the run whose shard folders it may touch (default: here)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    logging.captureWarnings(True)
    # Which copy of the library serves, as every job's log says of its own (logs.to_file).
    from tabprobe import __version__

    log.info("tabprobe %s from %s", __version__, code_inputs.PACKAGE_DIR)
    # The lock stays held while this process lives (the inherited descriptor shares it).
    os.set_inheritable(args.lock_fd, False)
    try:
        serve(
            args.checkpoint, args.address, json.loads(args.label_map), args.threads, args.idle, args.kind, args.run_root
        )
    except Exception as error:
        log.exception("traceback")
        shown = str(error) if isinstance(error, TabprobeError) else f"{type(error).__name__}: {error}"
        log.error("%s%s", STOPPED, shown)  # what the waiting jobs show
        raise SystemExit(1) from None


if __name__ == "__main__":
    _main()
