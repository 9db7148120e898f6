"""Running a probe over a split: one sampled perturbation per gold example, seeded."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.datasets import get_dataset
from tabprobe.io import read_parquet, write_json, write_parquet
from tabprobe.probes import (
    Example,
    NotApplicable,
    Probe,
    ProbeContext,
    ProbeExample,
    curation,
    get_probe,
    invariants,
    option_problems,
)
from tabprobe.probes.needs import load as load_needs
from tabprobe.probes.needs import needs_of
from tabprobe.seeding import seeded_rng, select_examples

log = logging.getLogger(__name__)


@dataclass
class Tally:
    """What happened to the examples of one probe run: why gold examples were skipped, which
    perturbations broke an invariant of their probe (dropped before sampling), and the curation
    of the label flips a person must check."""

    skipped: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # invariant name -> perturbations dropped
    curator: curation.Curator | None = None


def perturbations(
    probe_name: str,
    examples: pa.Table,
    tables: Mapping[str, Any],
    seed: int,
    options: Mapping[str, Any] | None = None,
    needs: Mapping[str, Any] | None = None,
    tally: Tally | None = None,
) -> Iterator[list[dict]]:
    """The probe applied to the examples one by one, lazily: for each gold example it perturbs,
    in the order of `examples`, the list of its probe examples (its table type's PROBE_EXAMPLES
    records). `needs`: what each of the probe's needs gives (probes/needs.py: need name -> value,
    e.g. "parse" -> uid -> Doc). Perturbations that break one of the probe's invariants are dropped
    before one is sampled; what was skipped, dropped and curated is counted into `tally`.
    `generate` runs it to the end; `tabprobe show` stops after a few."""
    probe = get_probe(probe_name)
    needs = dict(needs or {})
    missing = [name for name in sorted(probe.needs) if name not in needs]
    if missing:
        from tabprobe.probes.needs import need

        read = "; ".join(f"{need(name, probe.datasets[0]).title} ({name!r})" for name in missing)
        raise ValueError(f"probe {probe_name} reads {read}; pass what it gives (needs={{{missing[0]!r}: ...}})")
    problems = option_problems(probe, options or {})
    if problems:  # the config check names them first, with file and line; this is for direct callers
        raise ValueError("; ".join(f"probes.{probe_name}.{name}: {problem}" for name, problem in problems))
    return _perturbations(probe, examples, tables, seed, options, needs, tally or Tally())


def _perturbations(probe, examples, tables, seed, options, given: dict, tally: Tally) -> Iterator[list[dict]]:
    probe_name = probe.name
    promises = invariants.of(probe)
    declared = needs_of(probe)
    skips = [(given[name], need.skip) for name, need in declared.items() if need.skip]
    per_example = [(given[name], need.per_example) for name, need in declared.items() if need.per_example]
    records = examples.to_pylist()
    shared: dict = {}
    for i, record in enumerate(records):
        if i and i % 5000 == 0:
            log.info("%s: %d / %d examples", probe_name, i, len(records))
        example = Example(record["uid"], record["table_id"], record["hypothesis"], record["label"])
        if example.label not in probe.labels:
            tally.skipped[f"gold label {example.label} is not probed"] += 1
            continue
        reason = next((why for value, skip in skips if (why := skip(value, example))), None)
        if reason:
            tally.skipped[reason] += 1
            continue
        ctx = ProbeContext(
            rng=seeded_rng(seed, probe_name, example.uid),
            tables=tables,
            options=options or {},
            shared=shared,
            seed=seed,
            needs={name: given[name] for name in declared},
        )
        doc = per_example[0][1](per_example[0][0], example) if per_example else None
        table = tables[example.table_id]
        try:
            candidates = probe.apply(example, table, doc, ctx)
        except NotApplicable as reason:
            tally.skipped[str(reason)] += 1
            continue
        if not candidates:
            tally.skipped["probe found nothing to change"] += 1
            continue
        candidates = _keeping_promises(probe_name, promises, example, table, candidates, tally)
        if not candidates:
            continue
        rows = _probe_rows(probe, example, candidates, ctx.rng, tally)
        if rows:
            yield rows


def _keeping_promises(
    probe_name: str,
    promises: tuple[invariants.Invariant, ...],
    example: Example,
    table: Any,
    candidates: list[ProbeExample],
    tally: Tally,
) -> list[ProbeExample]:
    """The candidates that break none of the probe's invariants; each one broken is counted and
    logged, and an example left with none is counted as skipped for its first breach."""
    kept_candidates, first_breach = [], None
    for candidate in candidates:
        broken = invariants.breaches(promises, example, table, candidate)
        for name, detail in broken:
            tally.dropped[name] += 1
            log.warning("%s %s: dropped, breaks %r: %s", probe_name, example.uid, name, detail)
        if broken:
            first_breach = first_breach or broken[0][0]
        else:
            kept_candidates.append(candidate)
    if not kept_candidates:
        tally.skipped[f"every perturbation dropped (breaks {first_breach!r})"] += 1
    return kept_candidates


def _probe_rows(
    probe: Probe, example: Example, candidates: list[ProbeExample], rng: np.random.Generator, tally: Tally
) -> list[dict]:
    """The probe examples of one gold example (`infobox.PROBE_EXAMPLES` records): one candidate
    drawn with the example's own `rng`, or every candidate, as the probe asks; the curator's
    decision applied to each."""
    probe_name = probe.name
    if probe.one_per_gold:
        choice = int(rng.integers(len(candidates))) if len(candidates) > 1 else 0
        uid = example.uid if probe_name == "original" else f"{example.uid}/{probe_name}"
        kept = [(uid, candidates[choice])]
    else:
        kept = [(f"{example.uid}/{probe_name}/{j}", c) for j, c in enumerate(candidates)]
    rows = []
    for uid, chosen in kept:
        expected, provenance = chosen.expected, {"candidates": len(candidates), **chosen.provenance}
        if tally.curator is not None:
            curated = tally.curator.review(uid, example.label, expected, chosen.hypothesis, provenance)
            if curated is None:
                tally.skipped["rejected by curation"] += 1
                continue
            expected, provenance = curated
        rows.append(
            {
                "uid": uid,
                "orig_uid": example.uid,
                "table_id": example.table_id,
                "hypothesis": chosen.hypothesis,
                "label": example.label,
                "probe": probe_name,
                "table": chosen.table.to_arrow(),
                "expected": expected,
                "provenance": json.dumps(provenance, sort_keys=True, ensure_ascii=False),
            }
        )
    return rows


def generate(
    probe_name: str,
    examples: pa.Table,
    tables: Mapping[str, Any],
    seed: int,
    options: Mapping[str, Any] | None = None,
    needs: Mapping[str, Any] | None = None,
    decisions: Mapping[str, curation.Decision] | None = None,
    split: str = "",
) -> tuple[pa.Table, dict]:
    """Apply a probe to every example; returns the probe examples and a coverage summary.
    `needs`: what each of the probe's needs gives (perturbations); `decisions` uid -> a person's
    curation decision (tabprobe.probes.curation), applied to the examples of `split`."""
    tally = Tally(curator=curation.Curator(decisions or {}, split, get_probe(probe_name).label_change))
    rows = [row for kept in perturbations(probe_name, examples, tables, seed, options, needs, tally) for row in kept]
    coverage = {
        "probe": probe_name,
        "gold": examples.num_rows,
        "perturbed": len({row["orig_uid"] for row in rows}),
        "probe_examples": len(rows),
        "skipped": dict(sorted(tally.skipped.items())),
        "dropped": dict(sorted(tally.dropped.items())),
        "review": tally.curator.summary(),
    }
    log.info(
        "%s: perturbed %d of %d examples (%d probe examples); skipped %s; dropped for breaking an invariant %s; "
        "curation %s",
        probe_name,
        coverage["perturbed"],
        examples.num_rows,
        len(rows),
        dict(tally.skipped),
        dict(tally.dropped),
        coverage["review"],
    )
    return pa.Table.from_pylist(rows, schema=probe_file_schema(probe_name)), coverage


def probe_file_schema(probe_name: str):
    """The contract of a probe's file: its dataset's table type's (data/table_type.py)."""
    return get_dataset(get_probe(probe_name).datasets[0]).table_type.probe_examples


@dataclass(frozen=True)
class ProbeInputs:
    """What a probe is applied to: a split's (capped) examples, its tables, and what each of the
    probe's needs gives (probes/needs.py), with what the coverage summary records of them."""

    examples: Any  # pa.Table, schemas.EXAMPLES
    tables: Mapping[str, Any]  # table id -> a table of the dataset's table type
    needs: Mapping[str, Any] = field(default_factory=dict)  # need name -> its value
    coverage: Mapping[str, Any] = field(default_factory=dict)


def read_probe_inputs(
    probe_name: str,
    split: str,
    examples_path: str,
    tables_path: str,
    seed: int,
    limit: int | None = None,
    need_files: Mapping[str, Any] | None = None,
    need_settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> ProbeInputs:
    """The inputs of generate_probe (also read by `tabprobe show`): the split's capped examples,
    its tables read as its dataset's table type, and each need loaded from its files (`need_files`:
    need name -> its path or paths; `need_settings`: need name -> its settings, probes/needs.py)."""
    probe = get_probe(probe_name)
    kind = get_dataset(probe.datasets[0]).table_type
    examples = select_examples(read_parquet(examples_path, schemas.EXAMPLES), limit, seed, split)
    tables = kind.load_tables(read_parquet(tables_path, kind.tables))
    loaded = load_needs(probe, split, need_files or {}, need_settings, examples, tables)
    coverage = {key: value for item in loaded.values() for key, value in item.coverage.items()}
    return ProbeInputs(examples, tables, {name: item.value for name, item in loaded.items()}, coverage)


def generate_probe(
    probe: str,
    split: str,
    examples_path: str,
    tables_path: str,
    out: str,
    coverage_out: str,
    seed: int,
    limit: int | None = None,
    options: Mapping[str, Any] | None = None,
    curation_paths: Sequence[str] = (),
    need_files: Mapping[str, Any] | None = None,
    need_settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    """Rule generate_probe: a probe applied to a split's (capped) examples. `need_files`: the rule's
    inputs, of which the files of the probe's needs are read (need name -> its files);
    `need_settings`: their settings (probe_inputs.smk: probes.needs.files and settings)."""
    decisions = curation.read_decisions(curation_paths) if curation_paths else {}
    inputs = read_probe_inputs(probe, split, examples_path, tables_path, seed, limit, need_files, need_settings)
    probe_examples, coverage = generate(
        probe, inputs.examples, inputs.tables, seed, options, inputs.needs, decisions, split
    )
    write_parquet(probe_examples, out, probe_file_schema(probe))
    write_json({"split": split, "limit": limit, **coverage, **inputs.coverage}, coverage_out)
