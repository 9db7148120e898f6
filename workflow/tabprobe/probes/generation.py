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
from tabprobe.data import parsing
from tabprobe.data.datasets import get_dataset
from tabprobe.data.infobox.table import Table
from tabprobe.data.infotabs import counterfactuals as human_counterfactuals
from tabprobe.data.tabfact import contracts
from tabprobe.data.tables import TABLES_SCHEMAS, load_tables
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
from tabprobe.probes.base import ProgramFacts
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
    tables: Mapping[str, Table],
    seed: int,
    options: Mapping[str, Any] | None = None,
    docs: Mapping[str, Any] | None = None,
    relevance: Mapping[str, tuple[str, ...]] | None = None,
    tally: Tally | None = None,
    counterfactuals: Mapping[tuple[str, str], Any] | None = None,
    programs: Mapping[str, ProgramFacts] | None = None,
) -> Iterator[list[dict]]:
    """The probe applied to the examples one by one, lazily: for each gold example it perturbs,
    in the order of `examples`, the list of its probe examples (`infobox.PROBE_EXAMPLES`
    records). Perturbations that break one of the probe's invariants are dropped before one is
    sampled; what was skipped, dropped and curated is counted into `tally`. `generate` runs it
    to the end; `tabprobe show` stops after a few."""
    probe = get_probe(probe_name)
    if probe.needs_parse and docs is None:
        raise ValueError(f"probe {probe_name} reads the hypothesis parse; pass the split's parses")
    if probe.needs_relevance and relevance is None:
        raise ValueError(f"probe {probe_name} reads which rows are relevant; pass the split's relevance")
    if probe.needs_human_counterfactuals and counterfactuals is None:
        raise ValueError(f"probe {probe_name} reads the hand-made counterfactuals; pass the split's set")
    if probe.needs_programs and programs is None:
        raise ValueError(f"probe {probe_name} re-executes the statements' programs; pass the split's programs")
    problems = option_problems(probe, options or {})
    if problems:  # the config check names them first, with file and line; this is for direct callers
        raise ValueError("; ".join(f"probes.{probe_name}.{name}: {problem}" for name, problem in problems))
    return _perturbations(
        probe, examples, tables, seed, options, docs, relevance, tally or Tally(), counterfactuals, programs
    )


def _perturbations(
    probe, examples, tables, seed, options, docs, relevance, tally: Tally, counterfactuals=None, programs=None
) -> Iterator[list[dict]]:
    probe_name = probe.name
    promises = invariants.of(probe)
    records = examples.to_pylist()
    shared: dict = {}
    for i, record in enumerate(records):
        if i and i % 5000 == 0:
            log.info("%s: %d / %d examples", probe_name, i, len(records))
        example = Example(record["uid"], record["table_id"], record["hypothesis"], record["label"])
        if example.label not in probe.labels:
            tally.skipped[f"gold label {example.label} is not probed"] += 1
            continue
        if probe.needs_relevance and example.uid not in relevance:
            tally.skipped["the relevance source does not cover this example"] += 1
            continue
        ctx = ProbeContext(
            rng=seeded_rng(seed, probe_name, example.uid),
            tables=tables,
            options=options or {},
            docs=docs,
            shared=shared,
            relevance=relevance,
            seed=seed,
            counterfactuals=counterfactuals,
            programs=programs,
        )
        doc = docs[example.uid] if docs is not None else None
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
    table: Table,
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
    tables: Mapping[str, Table],
    seed: int,
    options: Mapping[str, Any] | None = None,
    docs: Mapping[str, Any] | None = None,
    relevance: Mapping[str, tuple[str, ...]] | None = None,
    decisions: Mapping[str, curation.Decision] | None = None,
    split: str = "",
    counterfactuals: Mapping[tuple[str, str], Any] | None = None,
    programs: Mapping[str, ProgramFacts] | None = None,
) -> tuple[pa.Table, dict]:
    """Apply a probe to every example; returns the probe examples and a coverage summary.
    `docs` maps uid -> spaCy Doc of the hypothesis, for probes that read the parse; `relevance`
    uid -> relevant row keys, for probes that read it; `decisions` uid -> a person's curation
    decision (tabprobe.probes.curation), applied to the examples of `split`; `counterfactuals` the split's
    hand-made counterfactuals by (table id, hypothesis), for probes that read them; `programs` uid ->
    the statement's program and what it read (TabFact's bootstrap split), for probes that re-execute it."""
    tally = Tally(curator=curation.Curator(decisions or {}, split, get_probe(probe_name).label_change))
    rows = [
        row
        for kept in perturbations(
            probe_name, examples, tables, seed, options, docs, relevance, tally, counterfactuals, programs
        )
        for row in kept
    ]
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
    """What a probe is applied to: a split's (capped) examples, its tables, and, for probes that
    read them, the hypothesis parses and which rows each hypothesis needs."""

    examples: Any  # pa.Table, schemas.EXAMPLES
    tables: Mapping[str, Any]  # table id -> Table
    docs: Mapping[str, Any] | None = None  # uid -> spaCy Doc
    relevance: Mapping[str, tuple[str, ...]] | None = None  # uid -> relevant row keys
    relevance_source: str | None = None
    # (table id, hypothesis) -> the paper's hand-made counterfactuals (tabprobe.data.infotabs.counterfactuals)
    counterfactuals: Mapping[tuple[str, str], Any] | None = None
    # uid -> the statement's program and what it read (TabFact's bootstrap split)
    programs: Mapping[str, ProgramFacts] | None = None


def read_probe_inputs(
    split: str,
    examples_path: str,
    tables_path: str,
    seed: int,
    limit: int | None = None,
    parses_path: str | None = None,
    relevance_path: str | None = None,
    counterfactuals_root: str | None = None,
    verify_counterfactuals: bool = True,
    programs_path: str | None = None,
) -> ProbeInputs:
    """The inputs of generate_probe (also read by `tabprobe show`). `counterfactuals_root`: a copy
    of the hand-made counterfactual release, checked against its checksums unless told not to."""
    examples = select_examples(read_parquet(examples_path, schemas.EXAMPLES), limit, seed, split)
    tables = load_tables(read_parquet(tables_path, TABLES_SCHEMAS))
    docs = None
    if parses_path:
        docs = parsing.read(parses_path, zip(examples["uid"].to_pylist(), examples["hypothesis"].to_pylist()))
        log.info("read %d hypothesis parses from %s", len(docs), parses_path)
    relevant = source = None
    if relevance_path:
        found = read_parquet(relevance_path, schemas.RELEVANCE)
        relevant = schemas.relevant_keys(found)
        source = found["source"][0].as_py() if found.num_rows else "none"
    counterfactuals = None
    if counterfactuals_root:
        if verify_counterfactuals:
            human_counterfactuals.verify(counterfactuals_root)
        categories = {table_id: table.category for table_id, table in tables.items()}
        pairs = human_counterfactuals.read_split(counterfactuals_root, split, categories)
        counterfactuals = human_counterfactuals.by_example(pairs)
        log.info("read %d hand-made counterfactuals of %s from %s", len(pairs), split, counterfactuals_root)
    programs = read_programs(programs_path) if programs_path else None
    return ProbeInputs(examples, tables, docs, relevant, source, counterfactuals, programs)


def read_programs(path: str) -> dict[str, ProgramFacts]:
    """uid -> ProgramFacts, from a split's programs file (contracts.PROGRAMS: only programs that give
    their statement's label on the original table are there, data/tabfact/ingest.py)."""
    return {
        r["uid"]: ProgramFacts(r["program"], tuple(r["records_read"]), tuple(r["columns_read"]))
        for r in read_parquet(path, contracts.PROGRAMS).to_pylist()
    }


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
    parses_path: str | None = None,
    relevance_path: str | None = None,
    curation_paths: Sequence[str] = (),
    counterfactuals: Sequence[str] | None = None,
    verify_counterfactuals: bool = True,
    programs_path: str | None = None,
) -> None:
    """Rule generate_probe: a probe applied to a split's (capped) examples. `counterfactuals`: the
    hand-made counterfactual files of the split (its TSV first), or the downloaded copy's folder, for
    a probe that reads them; `programs_path`: the split's programs, for a probe that re-executes them."""
    counterfactuals_root = str(human_counterfactuals.root_of(counterfactuals[0])) if counterfactuals else None
    decisions = curation.read_decisions(curation_paths) if curation_paths else {}
    inputs = read_probe_inputs(
        split,
        examples_path,
        tables_path,
        seed,
        limit,
        parses_path,
        relevance_path,
        counterfactuals_root,
        verify_counterfactuals,
        programs_path,
    )
    probe_examples, coverage = generate(
        probe,
        inputs.examples,
        inputs.tables,
        seed,
        options,
        inputs.docs,
        inputs.relevance,
        decisions,
        split,
        inputs.counterfactuals,
        inputs.programs,
    )
    write_parquet(probe_examples, out, probe_file_schema(probe))
    write_json(
        {
            "split": split,
            "limit": limit,
            **coverage,
            **({"relevance": inputs.relevance_source} if relevance_path else {}),
            **({"made_by": "human", "source": counterfactuals_root} if counterfactuals_root else {}),
        },
        coverage_out,
    )
