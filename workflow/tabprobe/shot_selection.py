"""The k-shot examples a causal LM's prompts start with (rule select_shots): drawn once from the
training split, seeded, the same for every probe."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from . import LABELS
from .errors import ModelError
from .seeding import seeded_rng


def select_shots(examples: pa.Table, tables: pa.Table, k: int, seed: int) -> list[dict]:
    """`k` training examples for a k-shot prompt, seeded: the labels take turns (E, N, C, E, ...)
    so that no label is favoured by the shots alone, and within a label the examples are a seeded
    random draw. The same for every probe, so each probe's comparison with `original` stays
    paired. Each shot: uid, table (as in probe examples), hypothesis, label."""
    if k == 0:
        return []
    by_id = {t["table_id"]: t for t in tables.to_pylist()}
    rows = examples.to_pylist()
    rng = seeded_rng(seed, "causal-shots")
    pools = {label: [r for r in rows if r["label"] == label and r["table_id"] in by_id] for label in LABELS}
    drawn = {label: list(rng.permutation(len(pool))) for label, pool in pools.items()}
    shots = []
    for i in range(k):
        label = LABELS[i % len(LABELS)]
        if not drawn[label]:
            raise ModelError(
                f"config key causal.shots: train has only {len(pools[label])} {label} examples for {k} shots"
            )
        row = pools[label][drawn[label].pop(0)]
        shots.append(
            {"uid": row["uid"], "table": by_id[row["table_id"]], "hypothesis": row["hypothesis"], "label": label}
        )
    return shots


def write_shots(shots: list[dict], path: str | Path) -> None:
    from .io import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(shots, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
