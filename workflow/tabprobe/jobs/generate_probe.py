"""Rule generate_probe: a probe applied to a split's (capped) examples."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import curation, human_counterfactuals, infotabs, parsing, perturb, schemas
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
    # (table id, hypothesis) -> the paper's hand-made counterfactuals (tabprobe.human_counterfactuals)
    counterfactuals: Mapping[tuple[str, str], Any] | None = None


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
) -> ProbeInputs:
    """The inputs of generate_probe (also read by `tabprobe show`). `counterfactuals_root`: a copy
    of the hand-made counterfactual release, checked against its checksums unless told not to."""
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
    counterfactuals = None
    if counterfactuals_root:
        if verify_counterfactuals:
            human_counterfactuals.verify(counterfactuals_root)
        categories = {table_id: table.category for table_id, table in tables.items()}
        pairs = human_counterfactuals.read_split(counterfactuals_root, split, categories)
        counterfactuals = human_counterfactuals.by_example(pairs)
        log.info("read %d hand-made counterfactuals of %s from %s", len(pairs), split, counterfactuals_root)
    return ProbeInputs(examples, tables, docs, relevant, source, counterfactuals)


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
) -> None:
    """`counterfactuals`: the hand-made counterfactual files of the split (its TSV first), or the
    downloaded copy's folder, for a probe that reads them."""
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
    )
    probe_examples, coverage = perturb.generate(
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
    )
    write_parquet(probe_examples, out, schemas.PROBE_EXAMPLES)
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
