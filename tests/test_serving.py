"""The model server (tabprobe.models.serving) with real processes on real alpha1 examples: jobs on a
server write the bytes of jobs that load the model themselves, the first job starts the server
and the others use it (one load), requests at once on its threads get the bytes of one at a time,
and faults end in a clear error or the same bytes: a server killed mid-job, a server that cannot
load its model, a checkpoint re-trained under a running server, a bad request, a server left with
nothing to do. And trust: another local user (made here where the tests run as root) gets no
answer, the socket's public name holds no secret, and a request for a shard folder outside the
run or for another checkpoint is refused."""

from __future__ import annotations

import json
import logging
import os
import pwd
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from browser import in_ci
from test_training_and_resume import alpha1_probe
from tiny_bert import tiny_bert

from tabprobe import code_inputs, stages
from tabprobe.data.infobox import table as infobox
from tabprobe.data.tables import PROBE_EXAMPLES_SCHEMAS, render, table_from_arrow
from tabprobe.io import read_parquet, write_parquet
from tabprobe.models import serving
from tabprobe.models.encoding import encode
from tabprobe.models.predict import load_model
from tabprobe.models.serving import ServerError

SETTINGS = dict(premise="para", batch_size=8, max_length=128, precision="fp32", pair_order="premise_first")


def _servers_of_this_test(tmp_path: Path, monkeypatch):
    """The test its own server folder (the jobs' temporary folder), so that it finds no other
    test's server, and its own run: the jobs run in tmp_path, as Snakemake runs them in the run's
    folder (a server touches only shard folders of the run it serves). The test's servers are
    stopped after it."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(serving.tempfile, "tempdir", None)  # re-read TMPDIR
    monkeypatch.chdir(tmp_path)
    yield
    folder = str(serving.server_folder())
    for process in psutil.process_iter():  # stop the servers this test started
        try:
            if any(arg.startswith(f"--address={folder}/") for arg in process.cmdline()):
                process.kill()
        except psutil.Error:
            pass


@pytest.fixture(autouse=True)
def private_servers(tmp_path, monkeypatch):
    """`_servers_of_this_test` for every test of a module that imports this fixture."""
    yield from _servers_of_this_test(tmp_path, monkeypatch)


@pytest.fixture
def own_servers(tmp_path, monkeypatch):
    """`_servers_of_this_test` for a test that asks for it."""
    yield from _servers_of_this_test(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return tiny_bert(tmp_path_factory.mktemp("tiny") / "ckpt", head=True, layers=4, hidden=64, intermediate=128)


@pytest.fixture(scope="module")
def probes(tmp_path_factory, shared_infotabs) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("probes")
    paths = {}
    for name, n in (("original", 48), ("row_deletion", 240)):
        paths[name] = folder / f"{name}.parquet"
        write_parquet(alpha1_probe(shared_infotabs, n, 3, name), paths[name], infobox.PROBE_EXAMPLES)
    return paths


def in_process(probe: Path, checkpoint: Path, out: Path) -> Path:
    stages.infer_nli(str(probe), str(checkpoint), str(out), str(out) + ".json", shard_size=16, **SETTINGS)
    return out


def served_job(probe: Path, checkpoint: Path, out: Path, server_log: Path, idle: float = 30) -> list[str]:
    """An infer_nli job on the model's server, in its own process, as the rule runs it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    code = (
        f"from tabprobe import logs, stages; from tabprobe.models import serving; serving.IDLE_SECONDS = {idle}; "
        f"logs.to_file({str(out) + '.log'!r}); "
        f"stages.infer_nli({str(probe)!r}, {str(checkpoint)!r}, {str(out)!r}, {str(out) + '.json'!r}, "
        f"shard_size=16, server_log={str(server_log)!r}, use_server=True, **{SETTINGS!r})"
    )
    return [sys.executable, "-c", code]


def server_pid(server_log: Path) -> int:
    """The pid of the first server that logged to `server_log`."""
    return int(re.search(r"serving .* \(pid (\d+),", server_log.read_text()).group(1))


def test_jobs_share_one_server_and_write_the_bytes_of_jobs_that_load_the_model(tmp_path, checkpoint, probes):
    server_log = tmp_path / "server.log"
    # Two jobs at once and one after: the first to look starts the server, all three use it.
    first = {
        name: subprocess.Popen(served_job(path, checkpoint, tmp_path / "served" / f"{name}.parquet", server_log))
        for name, path in probes.items()
    }
    assert all(job.wait(timeout=600) == 0 for job in first.values())
    again = tmp_path / "served" / "again.parquet"
    subprocess.run(served_job(probes["original"], checkpoint, again, server_log), check=True, timeout=600)
    text = server_log.read_text()
    assert text.count("loaded ") == 1 and text.count(" examples in ") == 3, text
    assert again.read_bytes() == (tmp_path / "served" / "original.parquet").read_bytes()
    for name, path in probes.items():
        alone = in_process(path, checkpoint, tmp_path / "alone" / f"{name}.parquet")
        served = tmp_path / "served" / f"{name}.parquet"
        assert served.read_bytes() == alone.read_bytes()
        timing = {"seconds", "examples_per_second"}
        stats, alone_stats = (json.loads(Path(str(p) + ".json").read_text()) for p in (served, alone))
        assert {k: v for k, v in stats.items() if k not in timing} == {
            k: v for k, v in alone_stats.items() if k not in timing
        }
        assert not served.with_name(f".{name}.shards").exists()
        job_log = Path(str(served) + ".log").read_text()
        assert "sent " in job_log and "inference: " in job_log and "import torch" not in job_log


def test_a_server_killed_mid_job_is_replaced_by_the_job_which_resumes_to_the_same_bytes(tmp_path, checkpoint, probes):
    probe = probes["row_deletion"]
    uninterrupted = in_process(probe, checkpoint, tmp_path / "alone.parquet")
    server_log, out = tmp_path / "server.log", tmp_path / "served" / "pred.parquet"
    shards = out.with_name(".pred.shards")
    job = subprocess.Popen(served_job(probe, checkpoint, out, server_log), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(shards.glob("block-*.npy"))) < 2:
        time.sleep(0.02)
    killed = server_pid(server_log)
    saved_when_killed = len(list(shards.glob("block-*.npy")))
    os.kill(killed, signal.SIGKILL)
    _, stderr = job.communicate(timeout=600)
    # The same job (no retry by Snakemake): it saw the server end, started a new one, resumed.
    assert job.returncode == 0, stderr[-2000:]
    assert 2 <= saved_when_killed < 15
    job_log = Path(str(out) + ".log").read_text()
    assert f"the model server ended mid-answer (pid {killed}; " in job_log and "starting a new one" in job_log
    assert server_pid(server_log) == killed  # the first "serving" line; the new server logged its own
    assert server_log.read_text().count("serving ") == 2
    assert out.read_bytes() == uninterrupted.read_bytes()
    assert json.loads(Path(str(out) + ".json").read_text())["resumed_examples"] >= 32


def test_a_server_that_cannot_load_its_model_ends_the_wait_with_its_reason(tmp_path, probes):
    headless = tiny_bert(
        tmp_path / "headless", head=False, id2label={0: "entailment", 1: "neutral", 2: "contradiction"}
    )
    server_log, out = tmp_path / "server.log", tmp_path / "pred.parquet"
    started = time.monotonic()
    result = subprocess.run(
        served_job(probes["original"], headless, out, server_log), capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0 and time.monotonic() - started < 120
    assert "stopped before answering" in result.stderr and "lacks trained weights" in result.stderr
    assert not out.exists()
    assert server_log.read_text().count(serving.STOPPED) == 1  # a failure with a reason is not retried


def test_a_job_that_reaches_a_stopping_server_starts_a_new_one(tmp_path, checkpoint, probes):
    """The moment an idle server stops: its address is removed, its lock not yet released. The
    log holds an earlier run's failure, which is not this job's reason."""
    server_log = tmp_path / "server.log"
    server_log.write_text(f"{serving.STOPPED}an earlier run's failure\nno request for 30 s: stopping\n")
    key = serving.server_key(serving.checkpoint_identity(checkpoint), None)
    held = serving.take_lock(serving.server_folder() / f"{key}.lock")
    assert held is not None
    releasing = threading.Timer(1.0, os.close, args=(held,))
    releasing.start()
    body, stats = serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / ".s.shards"), SETTINGS, server_log=str(server_log)
    )
    releasing.join()
    assert stats["examples"] == 48
    assert body == in_process(probes["original"], checkpoint, tmp_path / "alone.parquet").read_bytes()
    assert server_log.read_text().count("loaded ") == 1


def test_a_retrained_checkpoint_gets_a_new_server(tmp_path, probes):
    """The same folder, new weights: a server that loaded the old ones must not answer."""
    checkpoint = tiny_bert(tmp_path / "ckpt", head=True, seed=1)
    server_log = tmp_path / "server.log"
    subprocess.run(served_job(probes["original"], checkpoint, tmp_path / "a.parquet", server_log), check=True)
    time.sleep(0.01)
    tiny_bert(checkpoint, head=True, seed=2)  # re-trained in place while the first server idles
    subprocess.run(served_job(probes["original"], checkpoint, tmp_path / "b.parquet", server_log), check=True)
    assert server_log.read_text().count("loaded ") == 2
    assert (tmp_path / "a.parquet").read_bytes() != (tmp_path / "b.parquet").read_bytes()
    alone = in_process(probes["original"], checkpoint, tmp_path / "alone.parquet")
    assert (tmp_path / "b.parquet").read_bytes() == alone.read_bytes()


def test_the_server_key_covers_every_library_module_the_server_runs(tmp_path, checkpoint):
    """An edit to any module of the inference code gets a new server: the key hashes the import
    closure of both sides (the jobs' serving.py, the server's model_server.py), which reaches the
    classifiers, causal LMs, renderings and schemas."""
    runs = set(code_inputs.closure(serving.SERVER_SIDES))
    expected = {
        "models/classifiers.py",
        "models/causal.py",
        "models/predict.py",
        "data/infobox/render.py",
        "schemas.py",
    }
    assert expected <= runs
    # and the key moves when one of them changes (a copy of the library, one module edited)
    library = tmp_path / "tabprobe"
    shutil.copytree(code_inputs.PACKAGE_DIR, library, ignore=shutil.ignore_patterns("__pycache__"))
    before = serving.server_key("ckpt", None)
    original = code_inputs.PACKAGE_DIR
    try:
        code_inputs.PACKAGE_DIR = library
        code_inputs._library_imports.cache_clear()
        assert serving.server_key("ckpt", None) == before
        render = library / "data" / "infobox" / "render.py"
        render.write_text(render.read_text() + "\n# an edit\n")
        assert serving.server_key("ckpt", None) != before
    finally:
        code_inputs.PACKAGE_DIR = original
        code_inputs._library_imports.cache_clear()


def test_a_failed_request_is_reported_and_the_server_goes_on(tmp_path, checkpoint, probes):
    server_log = tmp_path / "server.log"
    with pytest.raises(ServerError, match=r"the model server failed this job .*missing\.parquet"):
        serving.ask(
            str(checkpoint),
            str(tmp_path / "missing.parquet"),
            str(tmp_path / ".s.shards"),
            SETTINGS,
            server_log=str(server_log),
        )
    body, stats = serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / ".s.shards"), SETTINGS, server_log=str(server_log)
    )
    assert body.startswith(b"PAR1") and stats["examples"] == 48
    assert server_log.read_text().count("loaded ") == 1


def test_a_server_with_nothing_to_do_stops_and_frees_its_lock(tmp_path, checkpoint, probes):
    server_log = tmp_path / "server.log"
    subprocess.run(served_job(probes["original"], checkpoint, tmp_path / "a.parquet", server_log, idle=2), check=True)
    pid = server_pid(server_log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid):
        time.sleep(0.2)
    assert not Path(f"/proc/{pid}").exists() or "zombie" in _state(pid), "the idle server kept running"
    assert "no request for 2 s: stopping" in server_log.read_text()
    # Its address went with it. (Only its own: a server killed by SIGKILL elsewhere on this
    # machine leaves its file, which the next server of that key removes.)
    addresses = [json.loads(f.read_text()) for f in serving.server_folder().glob("*.json")]
    assert not [a for a in addresses if a["pid"] == pid]
    # Its lock is freed. Not at once: a leader thread shows as a zombie while the process's other
    # threads (torch's) are still exiting, and those hold the descriptor until the last one ends.
    locks = list(serving.server_folder().glob("*.lock"))
    assert locks, "the server left no lock file to check"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(serving.lock_is_free(lock) for lock in locks):
        time.sleep(0.2)
    assert all(serving.lock_is_free(lock) for lock in locks), "the stopped server still holds its lock"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


def test_a_servers_folder_someone_else_could_enter_is_refused(tmp_path, checkpoint, probes):
    """On a shared machine another user could make the folder first (world-writable, or their
    own), hold a server's lock and answer this user's jobs: the job refuses such a folder, saying
    how to fix it, before it reads or writes anything there."""
    folder = Path(serving.tempfile.gettempdir()) / f"tabprobe-servers-{os.getuid()}"
    folder.mkdir(mode=0o700)
    folder.chmod(0o777)  # what a stranger's `mkdir -m 777` leaves
    with pytest.raises(ServerError, match=rf"{folder}: .* is open to others \(mode 777\).*chmod 700 {folder}"):
        serving.ask(str(checkpoint), str(probes["original"]), str(tmp_path / ".s.shards"), SETTINGS)
    assert list(folder.iterdir()) == []
    folder.chmod(0o700)
    if os.geteuid() != 0:
        pytest.skip("giving the folder to another user needs root (the open-folder case above ran)")
    os.chown(folder, 65534, 65534)  # nobody's
    try:
        with pytest.raises(ServerError, match=rf"{folder}: .* belongs to user id 65534, not to you.*rm -r {folder}"):
            serving.ask(str(checkpoint), str(probes["original"]), str(tmp_path / ".s.shards"), SETTINGS)
        assert list(folder.iterdir()) == []
    finally:
        os.chown(folder, os.getuid(), os.getgid())  # for the fixture that stops this test's servers


def test_the_servers_address_and_token_are_readable_by_their_owner_alone(tmp_path, checkpoint, probes):
    server_log = tmp_path / "server.log"
    subprocess.run(served_job(probes["original"], checkpoint, tmp_path / "a.parquet", server_log), check=True)
    folder = serving.server_folder()
    (address,) = folder.glob("*.json")  # the live (idle) server's
    assert "token" in json.loads(address.read_text())
    assert stat.S_IMODE(address.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(lock.stat().st_mode) == 0o600 for lock in folder.glob("*.lock"))


# ----------------------------------------------------------------------------- requests at once


def _premises_and_hypotheses(probe: Path) -> tuple[list[str], list[str]]:
    records = read_parquet(probe, PROBE_EXAMPLES_SCHEMAS).select(["table", "hypothesis"]).to_pylist()
    return [render(table_from_arrow(r["table"]), "para") for r in records], [r["hypothesis"] for r in records]


def test_threads_encoding_through_one_loaded_model_get_the_tokens_of_one_thread(checkpoint, probes):
    """The server's request threads share one loaded model. A fast tokenizer shared by them sets
    its truncation for one call while another thread's call encodes (on the old code 11 of 40
    encodings here came out other tokens): every thread must get the tokens a single thread gets
    from the tokenizer as loaded."""
    loaded = load_model(checkpoint)
    pairs = {name: _premises_and_hypotheses(path) for name, path in probes.items()}
    expected = {name: encode(loaded.loaded_tokenizer, *pair, 128) for name, pair in pairs.items()}
    assert all(found.truncated for found in expected.values())  # the cut as well as the whole encodings run
    names = list(pairs) * 2  # two threads on each file, the two files' cuts and whole encodings interleaved
    start = threading.Barrier(len(names))
    found: list[tuple[str, object]] = []

    def encode_repeatedly(name: str) -> None:
        start.wait()
        for _ in range(10):
            found.append((name, encode(loaded.tokenizer, *pairs[name], 128)))

    threads = [threading.Thread(target=encode_repeatedly, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 40
    wrong = [
        name
        for name, got in found
        if (got.features, got.truncated) != (expected[name].features, expected[name].truncated)
    ]
    assert not wrong, f"{len(wrong)} of {len(found)} encodings differ from one thread's"


def test_requests_at_once_on_one_server_get_the_bytes_of_one_at_a_time(tmp_path, checkpoint, probes):
    """Four jobs' requests at a time on the server's threads, two probe files of other lengths, three
    rounds: every answer the bytes a job that loads the model itself writes (the old server crashed
    with "size of tensor a (520) must match ... (512)" or answered other predictions)."""
    alone = {
        name: in_process(path, checkpoint, tmp_path / "alone" / f"{name}.parquet") for name, path in probes.items()
    }
    cut = {name: json.loads(Path(f"{out}.json").read_text())["truncated"] for name, out in alone.items()}
    alone = {name: out.read_bytes() for name, out in alone.items()}
    server_log = str(tmp_path / "server.log")
    # Loaded first, so that the requests below reach it at once.
    serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / ".warm.shards"), SETTINGS, server_log=server_log
    )
    names = list(probes) * 2
    start = threading.Barrier(len(names))
    answers: list[tuple[str, bytes, int]] = []
    failures: list[str] = []

    def job(number: int, name: str) -> None:
        start.wait()
        for round_ in range(3):
            shards = tmp_path / "served" / f".{name}-{number}-{round_}.shards"  # each computes from nothing
            try:
                body, stats = serving.ask(
                    str(checkpoint), str(probes[name]), str(shards), SETTINGS, server_log=server_log
                )
                answers.append((name, body, stats["truncated"]))
            except ServerError as error:
                failures.append(str(error))

    threads = [threading.Thread(target=job, args=(number, name)) for number, name in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]
    assert len(answers) == 12
    wrong = [name for name, body, truncated in answers if (body, truncated) != (alone[name], cut[name])]
    assert not wrong, f"{len(wrong)} of 12 answers are not the bytes of the job alone: {wrong}"
    assert Path(server_log).read_text().count("loaded ") == 1


# ----------------------------------------------------------------------------- trust


@dataclass(frozen=True)
class Stranger:
    """Another local user, and a Python interpreter that user may run."""

    name: str
    uid: int
    gid: int
    python: str

    def run(self, code: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.python, "-I", "-c", code, *args],
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=120,
        )

    def start(self, code: str, *args: str) -> subprocess.Popen:
        """`code` run by this user in the background, its output read as text."""
        return subprocess.Popen(
            [self.python, "-I", "-c", code, *args],
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            cwd="/",
            stdout=subprocess.PIPE,
            text=True,
        )


@pytest.fixture
def stranger():
    """A throwaway local user, made here and removed after: someone else on a shared login or
    compute node. Needs root; skips where it cannot be made, except under CI=true, where it fails."""

    def cannot(reason: str):
        if in_ci():
            pytest.fail(f"CI=true but the second-user tests cannot run: {reason}", pytrace=False)
        pytest.skip(reason)

    if os.geteuid() != 0:
        cannot("making a second local user needs root (useradd)")
    if not (shutil.which("useradd") and shutil.which("userdel")):
        cannot("useradd and userdel are not installed (Debian: passwd)")
    # The test's own interpreter may sit where other users cannot reach it (under /root).
    python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")
    if python is None:
        cannot("no python3 in /usr/bin, /bin or /usr/local/bin for the second user to run")
    name = f"tabprobe-t{secrets.token_hex(4)}"
    subprocess.run(
        ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        check=True,
        capture_output=True,
    )
    try:
        entry = pwd.getpwnam(name)
        made = Stranger(name, entry.pw_uid, entry.pw_gid, python)
        probe = made.run("import os; print(os.getuid())")
        if probe.returncode != 0 or probe.stdout.strip() != str(entry.pw_uid):
            cannot(f"the second user cannot run {python}: {probe.stderr.strip()[-300:]}")
        yield made
    finally:
        subprocess.run(["userdel", name], check=True, capture_output=True)


# What another user can do: find tabprobe's servers in /proc/net/unix, connect, and send a request
# (with the token, as if it had leaked) that names a shard folder of theirs. It prints, per server
# found, whether it connected and what came back.
STRANGERS_REQUEST = r"""
import json, socket, struct, sys
token, shard_dir, probe = sys.argv[1:4]
names = [line.split()[-1] for line in open("/proc/net/unix") if "@tabprobe-" in line]
results = []
for name in sorted(set(names)):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    try:
        sock.connect("\0" + name[1:])
    except OSError as error:
        results.append({"name": name, "connected": False, "error": str(error)})
        continue
    request = {"token": token, "checkpoint": "x", "probe": probe, "shard_dir": shard_dir,
               "settings": {"premise": "para", "max_length": 128, "precision": "fp32"}}
    payload = json.dumps(request).encode()
    answer, ended = b"", "closed"
    try:
        sock.sendall(struct.pack(">Q", len(payload)) + payload)
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError as error:  # the server closed it before reading: a reset
        ended = repr(error)
    results.append({"name": name, "connected": True, "answer": answer[8:].decode(errors="replace"), "ended": ended})
print(json.dumps(results))
"""


def _live_address(folder: Path) -> dict:
    (address,) = folder.glob("*.json")  # the one (idle) server's
    return json.loads(address.read_text())


def _raw_request(folder: Path, checkpoint: Path, **fields) -> dict:
    """Send the one live server a request of this user's with its token and `fields` as they are
    (a job's own requests resolve their paths first); the answer's header."""
    import socket

    info = _live_address(folder)
    request = {
        "token": info["token"],
        "checkpoint": str(checkpoint),
        "identity": serving.checkpoint_identity(checkpoint),
        "label_map": None,
        "kind": "classifier",
        **fields,
    }
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(info["address"].replace("@", "\0", 1))
        serving.send_frame(sock, json.dumps(request).encode())
        return json.loads(serving.receive_frame(sock))


def test_another_local_user_gets_no_answer_even_with_the_token(tmp_path, checkpoint, probes, stranger):
    server_log = tmp_path / "server.log"
    subprocess.run(served_job(probes["original"], checkpoint, tmp_path / "a.parquet", server_log), check=True)
    info = _live_address(serving.server_folder())
    # A folder of the stranger's, named like a shard folder: a server that took the request would
    # delete it (no inputs.sha256 of this job's inputs) and write root-owned blocks into it.
    theirs = tmp_path / "stranger" / ".p.shards"
    theirs.mkdir(parents=True)
    (theirs / "keep.txt").write_text("the stranger's")
    for path in (theirs.parent, theirs, theirs / "keep.txt"):
        os.chown(path, stranger.uid, stranger.gid)
    before = sorted(p.name for p in theirs.iterdir())
    result = stranger.run(STRANGERS_REQUEST, info["token"], str(theirs), str(probes["original"]))
    assert result.returncode == 0, result.stderr
    found = [r for r in json.loads(result.stdout) if r["name"] == info["address"]]
    assert len(found) == 1, result.stdout  # it found the server, as anyone can, and connected
    assert found[0]["connected"] and found[0]["answer"] == "", found[0]  # and got not a word back
    assert sorted(p.name for p in theirs.iterdir()) == before and (theirs / "keep.txt").read_text() == "the stranger's"
    assert f"refused a connection from user id {stranger.uid}: this server answers user id {os.geteuid()} alone" in (
        server_log.read_text()
    )
    # The server goes on answering its own user.
    body, stats = serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / ".b.shards"), SETTINGS, server_log=str(server_log)
    )
    assert body == (tmp_path / "a.parquet").read_bytes() and stats["examples"] == 48


# Another user listening where a server of ours was (once it stopped): on an abstract socket name
# of tabprobe's, read in /proc/net/unix while that server lived (`unix NAME`), or on a TCP port of
# ours (`tcp PORT`); it prints the connections it took and every byte it was sent.
STRANGERS_SERVER = r"""
import json, socket, sys
family, address, wait, read_wait = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
if family == "unix":
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind("\0" + address)
else:
    sock = socket.socket()
    sock.bind(("127.0.0.1", int(address)))
sock.listen(8)
sock.settimeout(wait)
print("listening", flush=True)
received, connections = b"", 0
try:
    while True:
        conn, _ = sock.accept()
        connections += 1
        conn.settimeout(read_wait)
        try:
            while chunk := conn.recv(65536):
                received += chunk
        except OSError:
            pass
        conn.close()
except TimeoutError:
    pass
print(json.dumps({"connections": connections, "received": received.decode(errors="replace")}))
"""


def test_a_job_sends_nothing_to_another_users_process_on_a_dead_servers_name(
    tmp_path, checkpoint, probes, stranger, caplog
):
    """A server killed with SIGKILL leaves its address file, and its public socket name is free for
    another user to take. A job that reads the file in the moment before the lock is freed (the
    kernel tearing the server down; here the test holds the lock for a second) must not send that
    process its request (with the token), and must start a server of its own once the lock is free."""
    server_log = tmp_path / "server.log"
    key = serving.server_key(serving.checkpoint_identity(checkpoint), None)
    name = f"tabprobe-server-{secrets.token_hex(8)}"
    squatter = stranger.start(STRANGERS_SERVER, "unix", name, "20", "5")
    try:
        assert squatter.stdout.readline().strip() == "listening"
        dead = {
            "family": "abstract",
            "address": f"@{name}",
            "pid": 1,
            "identity": serving.checkpoint_identity(checkpoint),
            "token": "the dead server's token",
        }
        (serving.server_folder() / f"{key}.json").write_text(json.dumps(dead))
        held = serving.take_lock(serving.server_folder() / f"{key}.lock")
        assert held is not None
        releasing = threading.Timer(1.0, os.close, args=(held,))
        releasing.start()
        caplog.set_level(logging.WARNING, logger="tabprobe.models.serving")
        body, stats = serving.ask(
            str(checkpoint), str(probes["original"]), str(tmp_path / ".s.shards"), SETTINGS, server_log=str(server_log)
        )
        releasing.join()
        assert body.startswith(b"PAR1") and stats["examples"] == 48
        assert server_log.read_text().count("loaded ") == 1  # its own server, started afresh
        heard = json.loads(squatter.communicate(timeout=120)[0])
    finally:
        squatter.kill()
    assert heard == {"connections": 1, "received": ""}  # it connected once, then sent nothing
    warned = f"leads to a process of user id {stranger.uid}, not to this user's server: not used"
    assert caplog.text.count(warned) == 1


def test_the_sockets_public_name_holds_no_secret(tmp_path, checkpoint, probes):
    """Every local user reads the names of abstract sockets in /proc/net/unix; the token, which a
    request must carry, is only in the address file, which its owner alone may read."""
    subprocess.run(
        served_job(probes["original"], checkpoint, tmp_path / "a.parquet", tmp_path / "server.log"), check=True
    )
    info = _live_address(serving.server_folder())
    listed = Path("/proc/net/unix").read_text()
    assert info["address"] in listed  # the server is listed there, under its random name
    assert info["token"] not in listed and len(info["token"]) == 32


def test_a_request_for_a_shard_folder_outside_the_run_is_refused_and_nothing_there_changes(
    tmp_path, checkpoint, probes
):
    """The server deletes a shard folder whose blocks are of other inputs and writes blocks into
    it: it takes only shard folders of the run it serves (the jobs' working directory, here
    tmp_path), links followed, and only folders named as infer_nli names them."""
    server_log = str(tmp_path / "server.log")
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    outside.mkdir()
    elsewhere = outside / ".p.shards"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the run's")
    link = tmp_path / "results" / "predictions" / "m" / "p" / ".alpha1.shards"  # in the run, linking out
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "results" / "keep.txt").write_text("the run's results")
    cases = {
        str(elsewhere): r"outside the run this server serves",
        str(tmp_path / "results"): r"not a shard folder of an infer_nli job",
    }
    for shard_dir, refusal in cases.items():
        with pytest.raises(ServerError, match=rf"the model server failed this job .*{refusal}"):
            serving.ask(str(checkpoint), str(probes["original"]), shard_dir, SETTINGS, server_log=server_log)
    # The link as it is, unresolved (a job resolves its paths before sending them): the server
    # follows it itself.
    header = _raw_request(
        serving.server_folder(),
        checkpoint,
        probe=str(probes["original"]),
        shard_dir=str(link),
        settings=SETTINGS,
    )
    assert not header["ok"]
    assert header["error"] == (
        f"{link}: the shard folder resolves to {elsewhere}, outside the run this server serves ({tmp_path.resolve()}); "
        "it deletes and writes shard folders of that run alone. Run the job from its run's folder (Snakemake's "
        "working directory), where its outputs are"
    )
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    assert (tmp_path / "results" / "keep.txt").read_text() == "the run's results" and link.is_symlink()
    # A results folder that links to another filesystem (a cluster's scratch) is the run's own.
    scratch = outside / "scratch-results"
    scratch.mkdir()
    run = tmp_path / "linked-run"
    run.mkdir()
    (run / "results").symlink_to(scratch, target_is_directory=True)
    shards = run / "results" / "predictions" / "m" / "p" / ".alpha1.shards"
    body, _ = serving.ask(
        str(checkpoint), str(probes["original"]), str(shards), SETTINGS, server_log=server_log, run_root=run
    )
    assert body.startswith(b"PAR1") and (scratch / "predictions" / "m" / "p" / ".alpha1.shards").is_dir()


def test_a_request_for_another_checkpoint_is_refused(tmp_path, checkpoint, probes):
    """A server answers only for the checkpoint version it loaded (a request reaching it with
    another is refused, not answered with this one's predictions)."""
    server_log = tmp_path / "server.log"
    serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / ".a.shards"), SETTINGS, server_log=str(server_log)
    )
    other = tiny_bert(tmp_path / "other", head=True, seed=7)
    folder = serving.server_folder()
    key = serving.server_key(serving.checkpoint_identity(checkpoint), None)
    sock, info = serving._connect(folder, key, serving.checkpoint_identity(checkpoint), server_log, timeout=60)
    claimed = (str(other), serving.checkpoint_identity(other), None, "classifier")
    header, body = serving._request(
        sock, info, claimed, probes["original"], tmp_path / ".b.shards", SETTINGS, server_log
    )
    assert not header["ok"] and body == b""
    assert f"this server answers for {Path(checkpoint).resolve()}" in header["error"]
    assert f"not for {other}" in header["error"]
    assert not (tmp_path / ".b.shards").exists()
