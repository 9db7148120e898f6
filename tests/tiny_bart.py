"""Tiny BART sequence classifiers with random, seeded weights, built from a config in the test's
folder (nothing is downloaded): the architecture of TAPEX's TabFact checkpoints
(BartForSequenceClassification), for the `tapex` rendering's tests and the inference benchmark.
The tokenizer is BART's own class over a byte-level BPE trained here on a few sentences in
TAPEX's linearisation, so pairs are laid out as BART lays them out: <s> A </s></s> B </s>."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch
from tokenizers import ByteLevelBPETokenizer
from transformers import BartConfig, BartForSequenceClassification, BartTokenizer

# BART's special tokens, at BART's ids (<s> 0, <pad> 1, </s> 2), which its config names.
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
# Words of TAPEX-linearised InfoTabS and TabFact tables and their hypotheses, for the BPE to learn.
CORPUS = [
    "col : key | value row 1 : title | alice smith row 2 : born | 12 march 1950, london",
    "col : week | opponent | result row 1 : 1 | bears | w 21 - 3 row 2 : 2 | lions | l 10 - 17",
    "Alice Smith was born in London in 1950. The album was released before 2000.",
    "the bears be the opponent in week 1 . the lions win in week 2 . the rams lose",
    "genre | rock, pop row 3 : length | 45:10 row 4 : population | 30,000 country | united states",
]
NLI_LABELS = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
TAPEX_TABFACT_LABELS = {0: "Refused", 1: "Entailed"}  # microsoft/tapex-*-finetuned-tabfact's names


def bart_tokenizer(vocab_size: int = 500) -> BartTokenizer:
    """BART's tokenizer over a byte-level BPE trained on CORPUS (any text encodes: bytes are the base)."""
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS, vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False)
    with tempfile.TemporaryDirectory() as folder:
        bpe.save_model(folder)
        return BartTokenizer(f"{folder}/vocab.json", f"{folder}/merges.txt")


def tiny_bart(
    path: Path,
    *,
    id2label: dict[int, str] | None = None,
    d_model: int = 32,
    layers: int = 1,
    ffn: int = 64,
    max_positions: int = 512,
    seed: int = 0,
) -> Path:
    """Save a seeded random BartForSequenceClassification (labels `id2label`, NLI names by default)
    and its tokenizer into `path`, with safetensors, as a user would save theirs."""
    tokenizer = bart_tokenizer()
    labels = id2label or NLI_LABELS
    torch.manual_seed(seed)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=d_model,
        encoder_layers=layers,
        decoder_layers=layers,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=ffn,
        decoder_ffn_dim=ffn,
        max_position_embeddings=max_positions,
        num_labels=len(labels),
        id2label=labels,
        label2id={name: index for index, name in labels.items()},
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,  # as BART's own checkpoints start decoding
        forced_eos_token_id=tokenizer.eos_token_id,
    )
    BartForSequenceClassification(config).save_pretrained(path, safe_serialization=True)
    tokenizer.save_pretrained(path)
    return path
