"""The model server (tabprobe.models.serving) with real processes on real alpha1 examples: jobs on a
server write the bytes of jobs that load the model themselves, the first job starts the server
and the others use it (one load), and faults end in a clear error or the same bytes: a server
killed mid-job, a server that cannot load its model, a checkpoint re-trained under a running
server, a bad request, a server left with nothing to do."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from test_training_and_resume import alpha1_probe
from tiny_bert import tiny_bert

from tabprobe import code_inputs, schemas, stages
from tabprobe.io import write_parquet
from tabprobe.models import serving
from tabprobe.models.serving import ServerError

SETTINGS = dict(premise="para", batch_size=8, max_length=128, precision="fp32", pair_order="premise_first")


@pytest.fixture(autouse=True)
def private_servers(tmp_path, monkeypatch):
    """Each test its own server folder (the jobs' temporary folder), so no test finds another's server."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(serving.tempfile, "tempdir", None)  # re-read TMPDIR
    yield
    folder = str(serving.server_folder())
    for process in psutil.process_iter():  # stop the servers this test started
        try:
            if any(arg.startswith(f"--address={folder}/") for arg in process.cmdline()):
                process.kill()
        except psutil.Error:
            pass


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return tiny_bert(tmp_path_factory.mktemp("tiny") / "ckpt", head=True, layers=4, hidden=64, intermediate=128)


@pytest.fixture(scope="module")
def probes(tmp_path_factory, shared_infotabs) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("probes")
    paths = {}
    for name, n in (("original", 48), ("row_deletion", 240)):
        paths[name] = folder / f"{name}.parquet"
        write_parquet(alpha1_probe(shared_infotabs, n, 3, name), paths[name], schemas.PROBE_EXAMPLES)
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
    held = serving._take_lock(serving.server_folder() / f"{key}.lock")
    assert held is not None
    releasing = threading.Timer(1.0, os.close, args=(held,))
    releasing.start()
    body, stats = serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / "s"), SETTINGS, server_log=str(server_log)
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
        "data/infotabs/render.py",
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
        render = library / "data" / "infotabs" / "render.py"
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
            str(tmp_path / "s"),
            SETTINGS,
            server_log=str(server_log),
        )
    body, stats = serving.ask(
        str(checkpoint), str(probes["original"]), str(tmp_path / "s"), SETTINGS, server_log=str(server_log)
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
    while time.monotonic() < deadline and not all(serving._lock_is_free(lock) for lock in locks):
        time.sleep(0.2)
    assert all(serving._lock_is_free(lock) for lock in locks), "the stopped server still holds its lock"


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
        serving.ask(str(checkpoint), str(probes["original"]), str(tmp_path / "s"), SETTINGS)
    assert list(folder.iterdir()) == []
    folder.chmod(0o700)
    if os.geteuid() != 0:
        pytest.skip("giving the folder to another user needs root (the open-folder case above ran)")
    os.chown(folder, 65534, 65534)  # nobody's
    try:
        with pytest.raises(ServerError, match=rf"{folder}: .* belongs to user id 65534, not to you.*rm -r {folder}"):
            serving.ask(str(checkpoint), str(probes["original"]), str(tmp_path / "s"), SETTINGS)
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
