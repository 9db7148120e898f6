"""A GGUF causal LM unpacked into a checkpoint folder for a server that reads folders only (rule
unpack_gguf, for `serve.unpack`): the folder names its architecture, carries no quantisation
config, and holds the model the GGUF file loads as, with its tokenizer and chat template."""

from __future__ import annotations

import json

import pytest
import torch
from tiny_gguf import tiny_gguf

pytest.importorskip("gguf")
pytest.importorskip("accelerate")


def test_the_unpacked_folder_is_the_gguf_model(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tabprobe.models.gguf import load_gguf
    from tabprobe.models.gguf_unpack import unpack_gguf

    gguf, _ = tiny_gguf(tmp_path / "gguf")
    unpack_gguf(str(gguf), str(tmp_path / "unpacked"))
    config = json.loads((tmp_path / "unpacked" / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"] and "quantization_config" not in config
    assert sorted(p.name for p in (tmp_path / "unpacked").glob("*.safetensors")) == ["model.safetensors"]
    folder = AutoModelForCausalLM.from_pretrained(tmp_path / "unpacked", use_safetensors=True)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "unpacked")
    model, from_file, _ = load_gguf(gguf)
    assert tokenizer.chat_template == from_file.chat_template and tokenizer.chat_template
    ids = torch.tensor([from_file("The genre of Blue Album are rock.", add_special_tokens=False)["input_ids"]])
    assert tokenizer("The genre of Blue Album are rock.", add_special_tokens=False)["input_ids"] == ids[0].tolist()
    with torch.no_grad():
        assert torch.equal(folder(ids).logits, model(ids).logits)
