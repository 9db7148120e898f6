"""Turning premise + hypothesis pairs into model inputs, shared by training and inference so a
model is always served exactly the inputs it was trained on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Encoded:
    """Unpadded token features per example (input_ids, and token_type_ids where the tokenizer
    has them) and how many premises had to be cut."""

    features: list[dict[str, list[int]]]
    truncated: int

    def lengths(self) -> np.ndarray:
        return np.array([len(f["input_ids"]) for f in self.features], dtype=np.int64)


def _features(batch, index: int) -> dict[str, list[int]]:
    out = {"input_ids": batch["input_ids"][index]}
    if "token_type_ids" in batch:
        out["token_type_ids"] = batch["token_type_ids"][index]
    return out


PAIR_ORDERS = ("premise_first", "hypothesis_first")


def pairs_only(model_config) -> bool:
    """Whether every example must be encoded as a pair, an empty premise included: an
    encoder-decoder classifier (BART, mBART, T5) classifies from its last end-of-sequence token
    and refuses a batch whose rows hold different numbers of them (a lone hypothesis has one, a
    pair three), so a probe file with some empty tables among full ones would stop the job."""
    return bool(getattr(model_config, "is_encoder_decoder", False))


def encode(
    tokenizer,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    max_length: int,
    pair_order: str = "premise_first",
    pairs_always: bool = False,
) -> Encoded:
    """Features of premise + hypothesis pairs: the premise is cut to fit `max_length`, the
    hypothesis kept whole unless it alone does not fit (then it is cut too; counted in
    `truncated` like every cut example). An empty premise (hypothesis-only) encodes the hypothesis alone, as the
    paper's hypothesis-only model sees it, unless `pairs_always` (`pairs_only`): then it is a
    pair with an empty premise, laid out like every other example. Tokenises in batches (the fast
    tokenizer's Rust loop).

    `pair_order` is premise_first (the usual NLI input, and what most checkpoints were trained
    on) or hypothesis_first, which puts the short hypothesis right after [CLS]: a small encoder
    fine-tuned on a CPU budget learns from that order much sooner (see docs/models.md, The default models).
    """
    if pair_order not in PAIR_ORDERS:
        raise ValueError(f"pair_order must be one of {PAIR_ORDERS}, not {pair_order!r}")
    premise_first = pair_order == "premise_first"
    n = len(premises)
    features: list[dict[str, list[int]] | None] = [None] * n
    with_premise = [i for i in range(n) if premises[i] or pairs_always]
    alone = [i for i in range(n) if not (premises[i] or pairs_always)]
    truncated = 0

    def pairs(indices):
        firsts = [premises[i] if premise_first else hypotheses[i] for i in indices]
        seconds = [hypotheses[i] if premise_first else premises[i] for i in indices]
        return firsts, seconds

    if alone:
        whole = tokenizer([hypotheses[i] for i in alone], truncation=False)
        truncated += sum(len(ids) > max_length for ids in whole["input_ids"])  # rare: counted, never silent
        batch = tokenizer([hypotheses[i] for i in alone], truncation=True, max_length=max_length)
        for j, i in enumerate(alone):
            features[i] = _features(batch, j)
    if with_premise:
        full = tokenizer(*pairs(with_premise), truncation=False)
        too_long = []
        for j, i in enumerate(with_premise):
            if len(full["input_ids"][j]) > max_length:
                too_long.append(i)
            else:
                features[i] = _features(full, j)
        truncated += len(too_long)
        if too_long:
            # Cut the premise alone; a hypothesis that does not fit by itself (rare, and only
            # with a tiny max_length) is cut too, with "longest_first".
            hyp_lengths = [len(tokenizer(hypotheses[i], add_special_tokens=False)["input_ids"]) for i in too_long]
            room = max_length - tokenizer.num_special_tokens_to_add(pair=True)
            cut_premise = "only_first" if premise_first else "only_second"
            for strategy, group in (
                (cut_premise, [i for i, h in zip(too_long, hyp_lengths) if h < room]),
                ("longest_first", [i for i, h in zip(too_long, hyp_lengths) if h >= room]),
            ):
                if group:
                    cut = tokenizer(*pairs(group), truncation=strategy, max_length=max_length)
                    for j, i in enumerate(group):
                        features[i] = _features(cut, j)
    return Encoded(features, truncated)


def collate(features: Sequence[dict[str, list[int]]], pad_id: int, pin: bool = False, left: bool = False):
    """Pad a batch to its longest member (dynamic padding) and return torch tensors; `pin` puts
    them in page-locked memory, from which a copy to the GPU does not block the CPU. `left` pads
    before the tokens rather than after, so that every row ends at the last position (a causal
    LM predicts the next token there)."""
    import torch

    width = max(len(f["input_ids"]) for f in features)
    ids = torch.full((len(features), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(features), width), dtype=torch.long)
    types = None
    if "token_type_ids" in features[0]:
        # A TAPAS token has seven type ids (segment, column, row, ...): a third dimension.
        per_token = np.shape(features[0]["token_type_ids"])[1:]
        types = torch.zeros((len(features), width, *per_token), dtype=torch.long)
    for row, f in enumerate(features):
        length = len(f["input_ids"])
        place = slice(width - length, width) if left else slice(0, length)
        ids[row, place] = torch.tensor(f["input_ids"], dtype=torch.long)
        mask[row, place] = 1
        if types is not None:
            types[row, place] = torch.tensor(f["token_type_ids"], dtype=torch.long)
    batch = {"input_ids": ids, "attention_mask": mask}
    if types is not None:
        batch["token_type_ids"] = types
    return {k: v.pin_memory() for k, v in batch.items()} if pin else batch
