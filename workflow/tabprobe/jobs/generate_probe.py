"""Rule generate_probe: a probe applied to a split's (capped) examples."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import curation, infotabs, parsing, perturb, schemas
from ..io import read_parquet, write_json, write_parquet

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProbeInputs:
    """What a probe is applied to: a split's (capped) examples, its tables, and, for probes that
    read them, the hypothesis parses and which rows each hypothesis needs."""

    examples: Any  # pa.Table, schemas.EXAMPLES
    tables: Mapping[str, Any]  # table id -> Table
    docs: Mapping[str, Any] | None = None  # uid -> spaCy Doc
    relevance: Mapping[str, tuple[str, ...]] | None = None  # uid -> relevant row keys
    relevance_source: str | None = None


def read_probe_inputs(
    split: str,
    examples_path: str,
    tables_path: str,
    seed: int,
    limit: int | None = None,
    parses_path: str | None = None,
    relevance_path: str | None = None,
) -> ProbeInputs:
    """The inputs of generate_probe (also read by `tabprobe show`)."""
    examples = perturb.select_examples(read_parquet(examples_path, schemas.EXAMPLES), limit, seed, split)
    tables = infotabs.load_tables(read_parquet(tables_path, schemas.TABLES))
    docs = None
    if parses_path:
        docs = parsing.read(parses_path, zip(examples["uid"].to_pylist(), examples["hypothesis"].to_pylist()))
        log.info("read %d hypothesis parses from %s", len(docs), parses_path)
    relevant = source = None
    if relevance_path:
        found = read_parquet(relevance_path, schemas.RELEVANCE)
        relevant = schemas.relevant_keys(found)
        source = found["source"][0].as_py() if found.num_rows else "none"
    return ProbeInputs(examples, tables, docs, relevant, source)


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
) -> None:
    decisions = curation.read_decisions(curation_paths) if curation_paths else {}
    inputs = read_probe_inputs(split, examples_path, tables_path, seed, limit, parses_path, relevance_path)
    probe_examples, coverage = perturb.generate(
        probe, inputs.examples, inputs.tables, seed, options, inputs.docs, inputs.relevance, decisions, split
    )
    write_parquet(probe_examples, out, schemas.PROBE_EXAMPLES)
    write_json(
        {
            "split": split,
            "limit": limit,
            **coverage,
            **({"relevance": inputs.relevance_source} if relevance_path else {}),
        },
        coverage_out,
    )
