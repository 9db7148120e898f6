"""A tiny causal LM written as a GGUF file here (nothing is downloaded): the tiny Llama of
tiny_causal with a byte-level BPE tokenizer and a chat template, converted tensor by tensor the
way llama.cpp's convert_hf_to_gguf.py writes a Llama (its q and k projections permuted for
llama.cpp's rotary layout, which transformers undoes on load), in fp32. Loading it back through
transformers' GGUF path must give the model of the checkpoint folder it was written from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tiny_causal import LLAMA_CHAT_TEMPLATE, tiny_causal
from transformers import AutoModelForCausalLM, AutoTokenizer

# transformers' names of a Llama's tensors, and llama.cpp's (gguf's tensor-name tables).
LAYER_TENSORS = {
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
    "input_layernorm": "attn_norm",
    "post_attention_layernorm": "ffn_norm",
}
TOKEN_NORMAL, TOKEN_CONTROL = 1, 3  # gguf.TokenType


def _permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's layout of a q or k projection: each head's rotary halves interleaved."""
    return (
        weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def tiny_gguf(
    folder: Path, *, seed: int = 0, chat_template: bool | str = True, answers: tuple[str, ...] = ()
) -> tuple[Path, Path]:
    """(the GGUF file, the checkpoint folder it was written from) of a seeded tiny Llama, both
    under `folder`; `chat_template` a template of its own, or True for tiny_causal's; `answers`:
    words it favours (tiny_causal)."""
    import gguf

    checkpoint = tiny_causal(folder / "folder", "llama", seed=seed, tokenizer_kind="gpt2", answers=answers)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    if chat_template:
        tokenizer.chat_template = LLAMA_CHAT_TEMPLATE if chat_template is True else chat_template
        tokenizer.save_pretrained(checkpoint)
    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    config = model.config
    path = folder / "tiny-llama.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("tiny-llama")
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_dimension_count(config.hidden_size // config.num_attention_heads)
    writer.add_rope_freq_base(float(config.rope_parameters["rope_theta"]))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_vocab_size(config.vocab_size)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    _add_tokenizer(writer, tokenizer)
    state = {name: tensor.float().numpy() for name, tensor in model.state_dict().items()}
    writer.add_tensor("token_embd.weight", state["model.embed_tokens.weight"])
    for layer in range(config.num_hidden_layers):
        for ours, theirs in LAYER_TENSORS.items():
            weights = state[f"model.layers.{layer}.{ours}.weight"]
            if theirs in ("attn_q", "attn_k"):
                weights = _permute(
                    weights, config.num_attention_heads if theirs == "attn_q" else config.num_key_value_heads
                )
            writer.add_tensor(f"blk.{layer}.{theirs}.weight", np.ascontiguousarray(weights))
    writer.add_tensor("output_norm.weight", state["model.norm.weight"])
    writer.add_tensor("output.weight", state["lm_head.weight"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path, checkpoint


def _add_tokenizer(writer, tokenizer) -> None:
    """The byte-level BPE tokenizer as llama.cpp stores one: tokens in id order, merges, types."""
    import json

    spec = json.loads(tokenizer.backend_tokenizer.to_str())
    vocab = spec["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    special = {token["content"] for token in spec["added_tokens"] if token["special"]}
    merges = [" ".join(pair) if isinstance(pair, list) else pair for pair in spec["model"]["merges"]]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types([TOKEN_CONTROL if token in special else TOKEN_NORMAL for token in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(tokenizer.bos_token_id)
    writer.add_eos_token_id(tokenizer.eos_token_id)
    writer.add_add_bos_token(False)
    if tokenizer.chat_template:
        writer.add_chat_template(tokenizer.chat_template)
