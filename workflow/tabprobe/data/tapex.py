"""TAPEX's table linearisation (Liu et al., 2022, "TAPEX: Table Pre-training via Learning a Neural
SQL Executor"), shared by every dataset's `tapex` rendering: transformers no longer ships TAPEX's
tokenizer, which did this, so the text is the project's to write, byte for byte as it wrote it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def linearise(header: Sequence[str], records: Iterable[Sequence[str]]) -> str:
    """ "col : h1 | h2 row 1 : v1 | v2 row 2 : ...", lower-cased: TAPEX's IndexedRowTableLinearize,
    whose tokenizer lower-cased its input (TAPEX was pre-trained on uncased text). Rows are
    numbered from 1, as TAPEX numbers them."""
    parts = ["col : " + " | ".join(header)]
    parts += [f"row {number} : " + " | ".join(record) for number, record in enumerate(records, start=1)]
    return " ".join(parts).lower()
