"""Tiny causal language models with random, seeded weights, built from configs in the test's
folder (nothing is downloaded): a Llama-shaped one with a SentencePiece-style tokenizer that
adds <s> and has a chat template, and a GPT-2-shaped one with a byte-level tokenizer and no
special tokens. Their tokenizers are BPE models trained here on a few sentences, with a small
vocabulary, so that some verbalisers split into several tokens."""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

# Words of InfoTabS premises, hypotheses and the default prompt, for the tokenizers to learn.
CORPUS = [
    "The born of Alice Smith are 12 March 1950, London. Alice Smith was born on 12 March 1950.",
    "The genre of Blue Album are rock, pop. The length of Blue Album are 45:10. Question: Blue Album is a jazz album.",
    "title : Mount Ord ; elevation : 1,234 m ; location : Canada . True, false, or neither? Answer: true",
    "Question: the film was released before 2000 . True, false, or neither? Answer: false",
    "Answer: neither. Answer: true. Answer: false. | key | value | | --- | --- | N/A yes no maybe",
    "The population of Springfield are 30,000. The country of Springfield are United States.",
]
LLAMA_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

# A chat template that reaches for Python's internals, as a hostile checkpoint's might (the way out
# of Jinja to os.system): transformers renders templates in Jinja's sandbox, which refuses it.
HOSTILE_CHAT_TEMPLATE = "{{ ''.__class__.__mro__[1].__subclasses__() }}" + LLAMA_CHAT_TEMPLATE


def _tokenizer(kind: str, vocab_size: int) -> PreTrainedTokenizerFast:
    if kind == "llama":
        tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=False))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        special = ["<unk>", "<s>", "</s>", "<pad>"]
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special, show_progress=False)
        tok.train_from_iterator(CORPUS, trainer)
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
        )
        fast = PreTrainedTokenizerFast(
            tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>"
        )
        fast.chat_template = LLAMA_CHAT_TEMPLATE
        return fast
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")


def tiny_causal(
    path: Path,
    kind: str = "llama",
    *,
    seed: int = 0,
    vocab_size: int = 400,
    layers: int = 2,
    tokenizer_kind: str | None = None,
    answers: tuple[str, ...] = (),
) -> Path:
    """Save a seeded random causal LM (`kind` llama or gpt2) and its tokenizer into `path`; the
    tokenizer is the one of `tokenizer_kind` (llama or gpt2) when given, else of `kind`. With
    `answers` (words, e.g. the verbalisers; llama only), the model generates those words far more
    often than any other token, which of them depending on its input (_favour)."""
    tokenizer = _tokenizer(tokenizer_kind or kind, vocab_size)
    torch.manual_seed(seed)
    if kind == "llama":
        config = LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=layers,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=1024,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        )
        model = LlamaForCausalLM(config)
    else:
        config = GPT2Config(
            vocab_size=len(tokenizer),
            n_embd=32,
            n_layer=layers,
            n_head=4,
            n_positions=1024,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
        )
        model = GPT2LMHeadModel(config)
    # Random weights give near-uniform label scores; sharpen them so predictions differ.
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(8.0)
    if answers:
        _favour(model, tokenizer, answers)
    model.save_pretrained(path, safe_serialization=True)
    tokenizer.save_pretrained(path)
    return path


def _favour(model, tokenizer, words) -> None:
    """Make a random Llama answer with `words` (those that are one token of its tokenizer, with or
    without a space before) or not, depending on its input: one dimension of the residual stream is held at a
    constant (every token embedding has the same small value there, and no layer writes to it), so
    after the final norm it is positive at every position, and the output rows of the words' tokens
    get a weight on it that lifts their logits for every input, by about 5 (measured on the
    corpus's sentences); the attention's output, scaled up, makes the rest of the last position's
    state depend on the prompt, which decides whether a word or another token comes first. (Which
    word wins hardly varies: the rows' random parts do not.)"""
    with torch.no_grad():
        model.model.embed_tokens.weight[:, 0] = 0.02
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.mul_(10.0)
            layer.self_attn.o_proj.weight[0, :] = 0.0
            layer.mlp.down_proj.weight[0, :] = 0.0
        held = []
        for sentence in CORPUS:
            ids = torch.tensor([tokenizer(sentence)["input_ids"]])
            held.append(model.model(input_ids=ids).last_hidden_state[0, -1, 0])
        lift = 5.0 / float(torch.stack(held).mean())
        head = model.get_output_embeddings().weight
        for word in words:
            for text in (word, " " + word):
                ids = tokenizer(text, add_special_tokens=False)["input_ids"]
                if len(ids) == 1:  # a word the tokenizer splits is left alone: its first piece begins others
                    head[ids[0], 0] = lift
