"""Premises that hold the evidence within a model's token budget (a model's `premise_selection`).

A model with a short context reads the start of its table only: at the CPU budget's 128 tokens about
half of the paper dataset's `para` premises are cut, and an edit past the cut is invisible to the model.
Selection keeps what is most related to the hypothesis instead, until the budget is full: the rows of
an infobox (distracting-row removal, Neeraja et al., NAACL 2021), or the columns and records of a
relational table (the column and row pruning TAPAS used to fit a relational table into its input, Eisenschlos et
al., 2020). What is kept keeps its table order; a table that fits its budget is kept whole.

Rule `related`:
- an infobox: rows ranked by the relevance aligner's row score (data/infobox/aligner.py, the
  `row_scores` seam below), ties in table order; each row in rank order is kept where the premise
  with it still fits; the title is always kept.
- a relational table: the columns whose header or cells share a word with the statement (all columns
  where none does), then records ranked by the statement words their cells hold (a word found in
  fewer records weighs more, a number twice), kept in rank order while they fit; where every record
  fits, the other columns come back, in rank order, while they fit. The caption is always kept.
Where nothing fits, the best-ranked row or record alone is kept and cut by the encoder like any
premise, so the most related evidence is never left out whole.

It runs on the table a model is given, a probe's edited table included: a deleted row is gone before
selection, an inserted one competes like any other. Training, inference, inoculation and prompts all
call `select` with their own `Budget` (the tokens left beside the hypothesis, and how to count them),
so a model is served the selection it was trained on. Which scorer to use was measured
(bench/premise_selection.py, docs/models.md): the aligner keeps more of the rows people marked than
plain word overlap does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tabprobe.data.infobox import aligner
from tabprobe.data.infobox.table import Table
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tables import AnyTable, render
from tabprobe.wordlists import word_set

SELECTIONS = ("related",)

# What the report and run.json say a rule does.
DESCRIPTIONS = {
    "related": (
        "the rows most related to the hypothesis (an infobox: by the relevance aligner's row score; a relational table: the "
        "columns and records sharing its words), kept in table order until max_length is full"
    ),
}

Scorer = Callable[[str, Table], list[float]]

_STOPWORDS = word_set("words/stopwords.txt")
_TOKEN = re.compile(r"[a-z]+|\d+(?:[.,:]\d+)*")
NUMBER_WEIGHT = 2.0  # a number names one fact; a word is often shared by several
HEADER_WEIGHT = 1.5  # a column named by the statement ("the attendance") is surely read


@dataclass(frozen=True)
class Budget:
    """The tokens a premise may take (`room`) and how a model counts them (`counts`: the tokens of each
    text; a classifier's tokenizer, or a prompt's length with the text as its table)."""

    room: int
    counts: Callable[[Sequence[str]], list[int]]

    def fits(self, text: str) -> bool:
        return self.counts([text])[0] <= self.room


def row_scores(hypothesis: str, table: Table) -> list[float]:
    """How related each infobox row is to the hypothesis: the aligner's score (the seam where an
    improved aligner plugs in)."""
    return aligner.row_scores(hypothesis, table)


def words(text: str) -> set[str]:
    """Lower-cased content words (a plural's "s" dropped, stop words left out) and numbers (without
    thousands commas): what word overlap compares."""
    out = set()
    for word in _TOKEN.findall(text.lower()):
        if word[0].isdigit():
            out.add(word.replace(",", ""))
        elif len(word) > 1 and word not in _STOPWORDS:
            out.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return out


def overlap_scores(query: set[str], items: Sequence[set[str]]) -> list[float]:
    """Each item's share of the query's words: a word found in k items gives each 1/k (a number
    NUMBER_WEIGHT/k), so a word every item holds tells little about which one is meant."""
    found: dict[str, int] = {}
    for item in items:
        for word in item & query:
            found[word] = found.get(word, 0) + 1
    weight = {w: (NUMBER_WEIGHT if w[0].isdigit() else 1.0) / n for w, n in found.items()}
    return [sum(weight[w] for w in item & query) for item in items]


def overlap_row_scores(hypothesis: str, table: Table) -> list[float]:
    """Infobox rows by plain word overlap of key and values with the hypothesis (the title's words left
    out: every sentence of the premise names the title): the alternative to the aligner, measured."""
    title = words(table.title)
    query = words(hypothesis) - title
    return overlap_scores(query, [words(" ".join((row.key, *row.values))) - title for row in table.rows])


def _ranked(scores: Sequence[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def _greedy(scores: Sequence[float], text_of: Callable[[list[int]], str], budget: Budget) -> list[int]:
    """Indices kept, in table order: each in rank order where the premise with it still fits; where
    none fits, the best-ranked alone.

    Counting every candidate premise anew would tokenise the table once per row; instead each item is
    counted alone, and what two items' texts share (a title, a caption, a prompt) once, in one batch.
    The sum is exact for sentences joined by spaces (`para`) and close for the other renderings; the
    premise kept is counted exactly at the end, and loses its lowest-ranked items until it fits."""
    ranked = _ranked(scores)
    pair = sorted(ranked[:2])
    counted = budget.counts([text_of([i]) for i in range(len(scores))] + [text_of(pair)])
    alone, together = counted[:-1], counted[-1]
    shared = sum(alone[i] for i in pair) - together if len(pair) == 2 else 0
    kept, used = [], 0
    for i in ranked:
        more = alone[i] - (shared if kept else 0)
        if used + more <= budget.room:
            kept.append(i)
            used += more
    if not kept:
        return ranked[:1]
    kept.sort()
    while len(kept) > 1 and not budget.fits(text_of(kept)):
        kept.remove(max(kept, key=ranked.index))
    return kept


def _infobox(table: Table, hypothesis: str, how: str, budget: Budget, scorer: Scorer) -> Table:
    rows = table.rows
    kept = _greedy(scorer(hypothesis, table), lambda idx: render(table.with_rows(rows[i] for i in idx), how), budget)
    return table.with_rows(rows[i] for i in kept)


def column_scores(statement: set[str], table: RelationalTable) -> list[float]:
    """How related each column is: the statement's words in its header (HEADER_WEIGHT each) and in its
    cells (overlap_scores over the columns' cells)."""
    cells = [set().union(*(words(record[c]) for record in table.records)) for c in range(len(table.header))]
    header = [len(words(name) & statement) * HEADER_WEIGHT for name in table.header]
    return [h + c for h, c in zip(header, overlap_scores(statement, cells))]


def _with(table: RelationalTable, columns: Sequence[int], records: Sequence[int]) -> RelationalTable:
    narrowed = table.with_records((table.records[i] for i in records), (table.source_records[i] for i in records))
    return narrowed.with_columns(columns)


def _relational(table: RelationalTable, statement: str, how: str, budget: Budget) -> RelationalTable:
    query = words(statement)
    by_column = column_scores(query, table)
    columns = [c for c, score in enumerate(by_column) if score > 0] or list(range(len(table.header)))
    by_record = overlap_scores(query, [set().union(*(words(cell) for cell in record)) for record in table.records])
    records = _greedy(by_record, lambda idx: render(_with(table, columns, idx), how), budget)
    if len(records) == len(table.records):
        for c in _ranked(by_column):
            trial = sorted({*columns, c})
            if c not in columns and budget.fits(render(_with(table, trial, records), how)):
                columns = trial
    return _with(table, columns, records)


def select(
    table: AnyTable,
    hypothesis: str,
    how: str,
    budget: Budget,
    rule: str = "related",
    scorer: Scorer = row_scores,
) -> AnyTable:
    """The part of `table` its premise (rendering `how`) keeps under `rule` (SELECTIONS): the table
    itself where its premise fits `budget`, else the rows, or columns and records, most related to
    `hypothesis` that fit, in table order. `scorer` ranks an infobox's rows (row_scores: the aligner's)."""
    if rule not in SELECTIONS:
        raise ValueError(f"unknown premise_selection {rule!r}; expected one of {', '.join(SELECTIONS)} or none")
    if how == "hypothesis_only" or budget.fits(render(table, how)):
        return table
    if isinstance(table, RelationalTable):
        return _relational(table, hypothesis, how, budget) if table.records else table
    return _infobox(table, hypothesis, how, budget, scorer) if table.rows else table


def describe(rule: str | None) -> str:
    """What a model's premise holds, in words for the report and run.json."""
    if rule is None:
        return "the whole table, cut at max_length"
    return f"premise selection `{rule}`: {DESCRIPTIONS[rule]}"
