"""Running a probe over a split: one sampled perturbation per gold example, seeded."""

from __future__ import annotations

import json
import logging
from collections import Counter
from typing import Any, Iterator, Mapping

import numpy as np
import pyarrow as pa

from . import schemas
from .probes import Example, NotApplicable, ProbeContext, get_probe
from .seeding import seeded_rng
from .table import Table

log = logging.getLogger(__name__)


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


def perturbations(
    probe_name: str,
    examples: pa.Table,
    tables: Mapping[str, Table],
    seed: int,
    options: Mapping[str, Any] | None = None,
    docs: Mapping[str, Any] | None = None,
    relevance: Mapping[str, tuple[str, ...]] | None = None,
    skipped: Counter | None = None,
) -> Iterator[list[dict]]:
    """The probe applied to the examples one by one, lazily: for each gold example it perturbs,
    in the order of `examples`, the list of its probe examples (`schemas.PROBE_EXAMPLES`
    records); the reason for each example it skips is counted into `skipped`. `generate` runs
    it to the end; `tabprobe show` stops after a few."""
    probe = get_probe(probe_name)
    if probe.needs_parse and docs is None:
        raise ValueError(f"probe {probe_name} reads the hypothesis parse; pass the split's parses")
    if probe.needs_relevance and relevance is None:
        raise ValueError(f"probe {probe_name} reads which rows are relevant; pass the split's relevance")
    return _perturbations(probe, examples, tables, seed, options, docs, relevance,
                          skipped if skipped is not None else Counter())


def _perturbations(probe, examples, tables, seed, options, docs, relevance, skipped) -> Iterator[list[dict]]:
    probe_name = probe.name
    records = examples.to_pylist()
    shared: dict = {}
    for i, record in enumerate(records):
        if i and i % 5000 == 0:
            log.info("%s: %d / %d examples", probe_name, i, len(records))
        example = Example(record["uid"], record["table_id"], record["hypothesis"], record["label"])
        if example.label not in probe.labels:
            skipped[f"gold label {example.label} is not probed"] += 1
            continue
        if probe.needs_relevance and example.uid not in relevance:
            skipped["the relevance source does not cover this example"] += 1
            continue
        ctx = ProbeContext(rng=seeded_rng(seed, probe_name, example.uid), tables=tables, options=options or {},
                           docs=docs, shared=shared, relevance=relevance, seed=seed)
        doc = docs[example.uid] if docs is not None else None
        try:
            candidates = probe.apply(example, tables[example.table_id], doc, ctx)
        except NotApplicable as reason:
            skipped[str(reason)] += 1
            continue
        if not candidates:
            skipped["probe found nothing to change"] += 1
            continue
        if probe.one_per_gold:
            choice = int(ctx.rng.integers(len(candidates))) if len(candidates) > 1 else 0
            uid = example.uid if probe_name == "original" else f"{example.uid}/{probe_name}"
            kept = [(uid, candidates[choice])]
        else:
            kept = [(f"{example.uid}/{probe_name}/{j}", c) for j, c in enumerate(candidates)]
        yield [
            {
                "uid": uid,
                "orig_uid": example.uid,
                "table_id": example.table_id,
                "hypothesis": chosen.hypothesis,
                "label": example.label,
                "probe": probe_name,
                "table": chosen.table.to_arrow(),
                "expected": chosen.expected,
                "provenance": json.dumps({"candidates": len(candidates), **chosen.provenance}, sort_keys=True,
                                         ensure_ascii=False),
            }
            for uid, chosen in kept
        ]


def generate(
    probe_name: str,
    examples: pa.Table,
    tables: Mapping[str, Table],
    seed: int,
    options: Mapping[str, Any] | None = None,
    docs: Mapping[str, Any] | None = None,
    relevance: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[pa.Table, dict]:
    """Apply a probe to every example; returns the probe examples and a coverage summary.
    `docs` maps uid -> spaCy Doc of the hypothesis, for probes that read the parse; `relevance`
    uid -> relevant row keys, for probes that read it."""
    skipped: Counter[str] = Counter()
    rows = [row for kept in perturbations(probe_name, examples, tables, seed, options, docs, relevance, skipped)
            for row in kept]
    coverage = {
        "probe": probe_name,
        "gold": examples.num_rows,
        "perturbed": len({row["orig_uid"] for row in rows}),
        "probe_examples": len(rows),
        "skipped": dict(sorted(skipped.items())),
    }
    log.info("%s: perturbed %d of %d examples (%d probe examples); skipped %s", probe_name, coverage["perturbed"],
             examples.num_rows, len(rows), dict(skipped))
    return pa.Table.from_pylist(rows, schema=schemas.PROBE_EXAMPLES), coverage
