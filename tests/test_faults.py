"""Faults as a user meets them, through Snakemake: a training job killed midway, a node that dies
during inference, a Parquet file damaged after it was written.

The workflow is copied into temporary folders (as in test_workflow_e2e.py) and run on a small
config: one model fine-tuned from a small randomly initialised BERT (the MiniLM vocabulary, 4
layers of 128) for 4 epochs, probed with `original` on all 1,800 alpha1 examples (4 inference
blocks of 512). One folder runs uninterrupted; in the other, the training job's process is
SIGKILLed after its first epoch, the run repeated, then the whole Snakemake process group is
SIGKILLed while inference is midway (a node crash) and the run repeated with --rerun-incomplete,
as the Slurm profile does. The outputs must be those of the uninterrupted run, byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil
import pyarrow as pa
import pytest
import yaml
from tiny_bert import tiny_bert
from workflow_copy import copy_workflow, snakemake_command

from tabprobe import schemas
from tabprobe.errors import CorruptFileError
from tabprobe.io import read_parquet, remove_leftovers, write_parquet

ROOT = Path(__file__).resolve().parents[1]
MODEL = "tiny"
CHECKPOINT = Path("resources/models") / MODEL
RESUME = Path("resources/models") / f".{MODEL}.resume"
PREDICTIONS = Path("results/predictions") / MODEL / "original" / "alpha1.parquet"
SHARDS = PREDICTIONS.with_name(".alpha1.shards")
SCORES = Path("results/scores") / MODEL / "original" / "alpha1.parquet"
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def small_base(tmp_path_factory) -> Path:
    """A 4-layer, 128-wide BERT with random weights and the MiniLM vocabulary: big enough that an
    epoch and an inference block each take about a second (room to kill a job midway), small
    enough for the whole module to run in about two minutes on 2 cores."""
    return tiny_bert(tmp_path_factory.mktemp("small-base"), hidden=128, layers=4, heads=4, intermediate=512)


def workflow_with_config(folder: Path, base: Path, infotabs: Path) -> Path:
    copy_workflow(folder)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config.update(
        infotabs_dir=str(infotabs),
        splits=["alpha1"],
        max_examples=None,
        probes={"original": {}},
        models={
            MODEL: {
                "train": {
                    "base": str(base),
                    "examples": 256,
                    "epochs": 4,
                    "max_length": 64,
                    "batch_size": 16,
                    "learning_rate": 0.001,
                    "dev_examples": 64,
                    "precision": "fp32",
                },
                "premise": "para",
                "max_length": 128,
                "batch_size": 32,
                "precision": "fp32",
            }
        },
        scoring={"samplings": 20, "fraction": 0.8, "bootstrap": 50, "confidence": 0.95},
        inoculation=None,
        controlled_variance=None,  # tested in test_inoculation_workflow.py
    )
    # No config.yaml in the copy: Snakemake would merge this file into it (see test_workflow_e2e.py).
    (folder / "faults.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder


def faults_command(workdir: Path, *args: str) -> list[str]:
    # One thread for training: on a shared 2-core machine, torch threads that wait on each other
    # train many times slower (measured: 12 s an epoch with 2 threads beside two other jobs, 0.75 s
    # with one), and a slow job would only stretch the test.
    return snakemake_command(workdir, workdir / "faults.yaml", "--cores", "2", "--set-threads", "train_model=1", *args)


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(faults_command(workdir, *args), capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def start_snakemake(workdir: Path, *args: str) -> subprocess.Popen:
    # A session of its own, so the whole run can be killed at once like a node going down.
    return subprocess.Popen(
        faults_command(workdir, *args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def wait_for(condition, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            raise AssertionError("snakemake ended before the moment to kill it came")
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing happened in {timeout} s")
        time.sleep(0.02)


def job_process(snakemake_process: subprocess.Popen, script: str) -> psutil.Process:
    """The Python process running a rule's script (Snakemake starts it as a child, maybe under a shell)."""
    for child in psutil.Process(snakemake_process.pid).children(recursive=True):
        try:
            command = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        if command and Path(command[0]).name.startswith("python") and any(a.endswith(f".{script}.py") for a in command):
            return child
    raise AssertionError(f"no running {script} job under snakemake")


def outputs(workdir: Path) -> dict[str, bytes]:
    """Every result and checkpoint file, by path; logs, benchmarks and Snakemake's own records aside."""
    found = {}
    for top in ("results", "resources/models"):
        for path in sorted((workdir / top).rglob("*")):
            if path.is_file():
                found[str(path.relative_to(workdir))] = path.read_bytes()
    return found


def entries(workdir: Path) -> list[str]:
    """Every file and folder under results/ and resources/models/."""
    return sorted(
        str(p.relative_to(workdir)) for top in ("results", "resources/models") for p in (workdir / top).rglob("*")
    )


def without_wall_time(name: str, content: bytes) -> object:
    """The content to compare: wall times and throughput differ from run to run (and a resumed
    job reports how much it took over), nothing else may."""
    timing = {"train_seconds", "seconds", "examples_per_second", "resumed_examples"}
    if name.endswith(".json"):

        def strip(obj):
            if isinstance(obj, dict):
                return {k: strip(v) for k, v in obj.items() if k not in timing}
            return obj

        return strip(json.loads(content))
    if name.startswith("results/report/"):
        # The report shows the training time ("..., max_length 64, 7 s").
        return re.sub(rb"max_length (\d+), \d+ s", rb"max_length \1, - s", content)
    return content


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, small_base, shared_infotabs) -> dict:
    workdir = workflow_with_config(tmp_path_factory.mktemp("uninterrupted"), small_base, shared_infotabs)
    snakemake(workdir)
    # Its outputs as they were, for comparison: the damaged-file test then works in this folder
    # (a copy would re-run everything: the library files are inputs by absolute path).
    return {"dir": workdir, "outputs": outputs(workdir), "entries": entries(workdir)}


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory, small_base, shared_infotabs) -> dict:
    workdir = workflow_with_config(tmp_path_factory.mktemp("interrupted"), small_base, shared_infotabs)
    seen = {"dir": workdir}

    # 1. The training job's process is killed once the state of its first epoch is saved.
    run = start_snakemake(workdir)
    wait_for(lambda: any((workdir / RESUME).glob("state-*.pt")), run)
    job_process(run, "train_model").send_signal(signal.SIGKILL)
    seen["first_returncode"] = run.wait(timeout=300)
    seen["after_training_kill"] = sorted(p.name for p in (workdir / RESUME).iterdir())
    seen["checkpoint_after_kill"] = (workdir / CHECKPOINT).exists()
    seen["models_folder_after_kill"] = sorted(p.name for p in (workdir / CHECKPOINT).parent.iterdir())
    seen["killed_training_log"] = (workdir / "logs/train_model" / f"{MODEL}.log").read_text()

    # 2. Re-run: training resumes; then the whole run dies with inference midway (a node crash).
    run = start_snakemake(workdir)
    wait_for(lambda: any((workdir / SHARDS).glob("block-*.npy")), run)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    for process in psutil.process_iter():  # what a dead node leaves: nothing of this run may live on
        try:
            if str(workdir) in " ".join(process.cmdline()):
                process.kill()
        except psutil.Error:
            pass
    seen["resumed_training_log"] = (workdir / "logs/train_model" / f"{MODEL}.log").read_text()
    seen["blocks_after_crash"] = len(list((workdir / SHARDS).glob("block-*.npy")))
    seen["predictions_after_crash"] = (workdir / PREDICTIONS).exists()

    # 3. After the crash, as on a cluster: unlock, and re-run what was left incomplete.
    snakemake(workdir, "--unlock")
    snakemake(workdir, "--rerun-incomplete")
    seen["stats"] = json.loads((workdir / PREDICTIONS).with_suffix(".json").read_text())
    seen["inference_log"] = (workdir / "logs/infer_nli" / MODEL / "original" / "alpha1.log").read_text()
    return seen


def test_killed_training_job_resumes_from_its_saved_epoch(interrupted):
    assert interrupted["first_returncode"] != 0  # Snakemake saw the job die
    assert not interrupted["checkpoint_after_kill"], "the training job should have been killed midway"
    assert len(interrupted["after_training_kill"]) == 1 and interrupted["after_training_kill"][0].startswith("state-")
    assert "epoch 4 / 4 done" not in interrupted["killed_training_log"]
    resumed = re.search(r"resumed from epoch (\d+) \(its end\), step (\d+) of 64", interrupted["resumed_training_log"])
    assert resumed, interrupted["resumed_training_log"][-3000:]
    assert 1 <= int(resumed.group(1)) < 4
    # Only the epochs after the saved state ran again, and their progress is in the log.
    assert "epoch 1 / 4 done" not in interrupted["resumed_training_log"]
    assert "epoch 4 / 4 done at step 64 / 64" in interrupted["resumed_training_log"]
    assert "dev accuracy" in interrupted["resumed_training_log"]
    # The killed attempt's temporary checkpoint folder was there; the re-run removed it, and
    # the resume state once the checkpoint was written.
    assert any(
        name.startswith(f".{MODEL}.") and name.endswith(".tmp") for name in interrupted["models_folder_after_kill"]
    )
    assert sorted(p.name for p in (interrupted["dir"] / CHECKPOINT).parent.iterdir()) == [MODEL]


def test_inference_after_a_node_crash_resumes_from_its_saved_blocks(interrupted):
    assert not interrupted["predictions_after_crash"], "the run should have died with inference midway"
    assert 1 <= interrupted["blocks_after_crash"] < 4
    assert interrupted["stats"]["resumed_examples"] == 512 * interrupted["blocks_after_crash"]
    assert f"({512 * interrupted['blocks_after_crash']} from saved shards)" in interrupted["inference_log"]
    assert not (interrupted["dir"] / SHARDS).exists()


def test_interrupted_run_ends_with_the_outputs_of_an_uninterrupted_one(interrupted, uninterrupted):
    killed, whole = outputs(interrupted["dir"]), uninterrupted["outputs"]
    assert sorted(killed) == sorted(whole)
    for name in (str(CHECKPOINT / "model.safetensors"), str(PREDICTIONS), str(SCORES)):
        assert name in whole
    differing = [
        name for name in whole if without_wall_time(name, killed[name]) != without_wall_time(name, whole[name])
    ]
    assert differing == []
    # Not even an empty folder more: no temporary files, resume state or shards left behind.
    assert entries(interrupted["dir"]) == uninterrupted["entries"]
    assert not [
        name for name in uninterrupted["entries"] if name.endswith(".tmp") or ".resume" in name or ".shards" in name
    ]


def test_a_damaged_parquet_file_stops_its_consumer_with_its_name(uninterrupted):
    workdir = uninterrupted["dir"]
    assert "Nothing to be done" in snakemake(workdir, "--dry-run").stdout
    predictions = workdir / PREDICTIONS
    times = predictions.stat()
    content = bytearray(predictions.read_bytes())
    content[len(content) // 2] ^= 0x01  # one flipped bit, as a failing disk leaves it
    predictions.write_bytes(bytes(content))
    os.utime(predictions, ns=(times.st_atime_ns, times.st_mtime_ns))  # unnoticed by Snakemake itself

    result = snakemake(workdir, "--forcerun", "score_probe", check=False)
    assert result.returncode != 0
    shown = result.stdout + result.stderr
    assert f"{PREDICTIONS}: cannot be read as Parquet" in shown, shown[-3000:]
    assert "Delete it and re-run" in shown
    scores = workdir / SCORES
    assert not scores.exists()  # no partial output of the consumer
    assert not list(scores.parent.glob(".*.tmp"))
    # The message's advice works: delete the file and re-run, and it is rebuilt as it was.
    predictions.unlink()
    snakemake(workdir, "--forcerun", "score_probe")
    assert predictions.read_bytes() == uninterrupted["outputs"][str(PREDICTIONS)]
    assert scores.read_bytes() == uninterrupted["outputs"][str(SCORES)]


def test_a_flipped_bit_in_any_byte_of_a_parquet_file_is_detected_or_harmless(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    probs = rng.dirichlet([1, 1, 1], n).astype(np.float32)
    table = pa.table(
        {
            "uid": [f"alpha1:{i}" for i in range(n)],
            "orig_uid": [f"alpha1:{i}" for i in range(n)],
            "pred": ["ENC"[i] for i in probs.argmax(1)],
            "probs": pa.array(probs.tolist(), pa.list_(pa.float32())),
            "model_fingerprint": ["0" * 16] * n,
            "input_digest": [f"{i:016x}" for i in range(n)],
        },
        schema=schemas.PREDICTIONS,
    )
    path, damaged = tmp_path / "predictions.parquet", tmp_path / "damaged.parquet"
    write_parquet(table, path, schemas.PREDICTIONS)
    content = path.read_bytes()
    footer_start = len(content) - 8 - int.from_bytes(content[-8:-4], "little")
    silently_different, detected_in_pages = [], 0
    # Every byte of the file once, from the data pages to the footer (which has no checksum).
    for position in range(len(content)):
        flipped = bytearray(content)
        flipped[position] ^= 0x04
        damaged.write_bytes(bytes(flipped))
        try:
            read = read_parquet(damaged, schemas.PREDICTIONS)
        except CorruptFileError as err:
            assert "damaged.parquet" in str(err)
            detected_in_pages += position < footer_start
            continue
        if not read.equals(table):
            silently_different.append(position)
    assert silently_different == []
    # Harmless flips are in page headers and footer fields no reader uses; in the pages
    # themselves nearly all are caught (without page checksums, about one in ten).
    assert detected_in_pages > 0.85 * footer_start


def test_only_the_leftovers_of_the_one_output_are_removed(tmp_path):
    # Names as atomic_dir / atomic_path make them for a writer killed before its rename.
    mine = [
        Path(tempfile.mkdtemp(prefix=".tiny.", suffix=".tmp", dir=tmp_path)),
        Path(tempfile.mkstemp(prefix=".tiny.", suffix=".tmp", dir=tmp_path)[1]),
    ]
    others = [
        Path(tempfile.mkdtemp(prefix=".tiny.v2.", suffix=".tmp", dir=tmp_path)),
        tmp_path / ".tiny.resume",
        tmp_path / "tiny",
    ]
    for folder in others[1:]:
        folder.mkdir()
    assert sorted(remove_leftovers(tmp_path / "tiny")) == sorted(mine)
    assert sorted(tmp_path.iterdir()) == sorted(others)


def test_a_write_removes_what_a_killed_write_of_the_same_output_left(tmp_path):
    """Every output goes through atomic_path / atomic_dir, so a re-run job of any rule (not only
    train_model) clears the temporary names its killed attempt left, and nothing else."""
    from tabprobe.io import atomic_dir, write_text

    killed_file = Path(tempfile.mkstemp(prefix=".out.json.", suffix=".tmp", dir=tmp_path)[1])
    killed_dir = Path(tempfile.mkdtemp(prefix=".model.", suffix=".tmp", dir=tmp_path))
    another_output = Path(tempfile.mkstemp(prefix=".other.json.", suffix=".tmp", dir=tmp_path)[1])
    write_text("{}", tmp_path / "out.json")
    assert not killed_file.exists() and killed_dir.exists()
    with atomic_dir(tmp_path / "model") as folder:
        (folder / "weights").write_text("w")
    assert not killed_dir.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.json", "model", another_output.name])
