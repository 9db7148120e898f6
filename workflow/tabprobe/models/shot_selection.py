"""The k-shot examples a causal LM's prompts start with (rule select_shots): drawn once from the
training split, seeded, the same for every probe."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pyarrow as pa

from tabprobe import LABELS, schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.errors import ModelError
from tabprobe.io import read_parquet
from tabprobe.seeding import seeded_rng


def choose_shots(examples: pa.Table, tables: pa.Table, k: int, seed: int) -> list[dict]:
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
    from tabprobe.io import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(shots, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


log = logging.getLogger(__name__)


def select_shots(examples: str, tables: str, out: str, shots: int, seed: int) -> None:
    """Rule select_shots: the k training examples a causal LM's prompts start with."""
    chosen = choose_shots(read_parquet(examples, schemas.EXAMPLES), read_parquet(tables, infobox.TABLES), shots, seed)
    write_shots(chosen, out)
    log.info("%d shots from train: %s", len(chosen), ", ".join(f"{s['uid']} ({s['label']})" for s in chosen))
