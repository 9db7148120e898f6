"""Seeded random generators that depend only on a seed and names, and the seeded subset of a
split's examples that every stage capping a split shares (probes, training, inoculation)."""

from __future__ import annotations

import zlib

import numpy as np
import pyarrow as pa


def seeded_rng(seed: int, *names: str) -> np.random.Generator:
    """A generator that depends only on the seed and the given names (stable across runs and
    platforms: crc32, not Python's salted hash)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(n.encode()) for n in names)]))


def select_examples(examples: pa.Table, limit: int | None, seed: int, split: str) -> pa.Table:
    """A seeded random subset of `limit` examples, kept in file order; all when limit is None.

    Depends on the seed, the split and the cap only, so every probe of a split with the same cap
    sees the same gold subset and its results stay comparable with `original`.
    """
    if limit is None or limit >= examples.num_rows:
        return examples
    # A prefix of one seeded permutation: a smaller cap picks a subset of a larger one, so a
    # probe capped lower than `original` still finds the original prediction of every example.
    rng = seeded_rng(seed, "example-subset", split)
    keep = np.sort(rng.permutation(examples.num_rows)[:limit])
    return examples.take(pa.array(keep))
