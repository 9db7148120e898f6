"""Seeded random generators that depend only on a seed and names."""

from __future__ import annotations

import zlib

import numpy as np


def seeded_rng(seed: int, *names: str) -> np.random.Generator:
    """A generator that depends only on the seed and the given names (stable across runs and
    platforms: crc32, not Python's salted hash)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(n.encode()) for n in names)]))
