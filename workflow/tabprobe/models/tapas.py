"""TAPAS sequence classifiers (TapasForSequenceClassification, with TapasTokenizer), which read the
table itself rather than a premise rendered to text: `premise: table`.

Every probe example's table is handed to the tokenizer as a data frame of strings, the structure it
is, and the statement as its query. The tokenizer gives every token seven type ids beside its id
(segment, column, row, previous answer, column rank, inverse rank, numeric relation): the
embeddings through which TAPAS knows which cell a token is in and how the cells' numbers compare.

How each table type becomes a data frame:
- an infobox: two columns, `key` and `value`, one row per infobox row, in its order. A key
  with several values keeps them in one cell, joined by ", " (as the `para` rendering writes them),
  so that one infobox row is one TAPAS row: a probe that deletes or moves a row deletes or moves one
  row of the model's input, and TAPAS's row ids count the infobox's rows. The title, which a
  statement often names ("Bob Dylan was born in 1941"), is the first row, keyed `title` (as the
  `struct` rendering, the paper's, writes it); the tokenizer drops rows from the end, so the title
  is the last thing cut. An empty infobox (the hypothesis_only probe) is an empty data frame: the
  statement alone.
- a relational table: its header and records as they are. Its caption is not given: a
  TAPAS table has a header and cells, no caption, and a caption row would break the columns that
  TAPAS ranks numbers in.

Truncation is TapasTokenizer's `drop_rows_to_fit` (whole rows from the end, and cells trimmed to
fewer tokens, until the table fits `max_length` beside the statement); an example that lost any
table token is counted in the run's `truncated`, as a cut premise is for a text classifier.

pandas is needed by TapasTokenizer alone: the `tapas` extra (pip install -e '.[tapas]').
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from tabprobe.data.infobox.table import Table
from tabprobe.data.tables import AnyTable
from tabprobe.errors import ModelError
from tabprobe.models.encoding import Encoded

# The premise value of a model that reads the table itself, and the model types that do.
TABLE_PREMISE = "table"
TABLE_MODEL_TYPES = frozenset({"tapas"})
# An infobox's columns, and the key of the row holding its title.
INFOBOX_COLUMNS = ("key", "value")
TITLE_KEY = "title"
VALUE_SEPARATOR = ", "


def reads_table(model_type: str | None) -> bool:
    """Whether a checkpoint of this config.json model_type reads the table itself (premise: table)."""
    return model_type in TABLE_MODEL_TYPES


def pairing_problem(premise: str, model_type: str | None) -> str | None:
    """Why `premise` does not fit a checkpoint of `model_type` (None when it does): a TAPAS
    checkpoint reads the table itself and nothing else, and only a TAPAS checkpoint reads one."""
    if reads_table(model_type) and premise != TABLE_PREMISE:
        return (
            f"a {model_type} checkpoint reads the table itself, not a premise rendered as {premise!r}; "
            f"give it `premise: {TABLE_PREMISE}`"
        )
    if premise == TABLE_PREMISE and not reads_table(model_type):
        return (
            f"`premise: {TABLE_PREMISE}` hands the model the table itself, which only a TAPAS checkpoint "
            f"(config.json model_type {', '.join(sorted(TABLE_MODEL_TYPES))}) reads; this one's model_type is "
            f"{model_type!r}: give it a rendering (para, struct, markdown or hypothesis_only)"
        )
    return None


def require_pandas() -> None:
    """TapasTokenizer takes its tables as pandas data frames; say how to install pandas before any
    loading fails on it."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise ModelError(
            "a TAPAS checkpoint (premise: table) needs pandas, which TapasTokenizer reads tables with: "
            "pip install -e '.[tapas]' (or pip install pandas)"
        ) from None


def data_frame(table: AnyTable):
    """The table as TapasTokenizer takes it: a pandas data frame of strings with the default row index
    (the module's docstring says how each table type is laid out, and why)."""
    import pandas as pd

    if isinstance(table, Table):
        if not table.title and not table.rows:
            return pd.DataFrame()
        rows = [(TITLE_KEY, table.title)] if table.title else []
        rows += [(row.key, VALUE_SEPARATOR.join(row.values)) for row in table.rows]
        return pd.DataFrame(rows, columns=list(INFOBOX_COLUMNS), dtype=object)
    return pd.DataFrame([list(record) for record in table.records], columns=list(table.header), dtype=object)


def _features(encoding) -> dict[str, list]:
    # The attention mask is all ones before padding: collate builds it.
    return {"input_ids": list(encoding["input_ids"]), "token_type_ids": [list(t) for t in encoding["token_type_ids"]]}


def encode_tables(
    tokenizer, tables: Sequence[AnyTable], statements: Sequence[str], max_length: int, names: Sequence[str]
) -> Encoded:
    """Features of (table, statement) pairs for a TAPAS model: input_ids and, per token, its seven
    type ids. A table that does not fit beside its statement in `max_length` tokens loses rows from
    its end and tokens from its longest cells (TapasTokenizer's drop_rows_to_fit) and is counted in
    `truncated`. `names` (the examples' uids) name an example whose statement and header alone do
    not fit."""
    features, truncated = [], 0
    for table, statement, name in zip(tables, statements, names):
        frame = data_frame(table)
        whole = None
        # The whole table first: most fit, and the cut is then known to have removed nothing. A table
        # of more rows than TAPAS has row ids is cut whatever its length.
        if len(frame) < tokenizer.max_row_id:
            whole = tokenizer(table=frame, queries=statement, truncation=False, verbose=False)
        if whole is not None and len(whole["input_ids"]) <= max_length:
            features.append(_features(whole))
            continue
        truncated += 1
        try:
            cut = tokenizer(table=frame, queries=statement, truncation="drop_rows_to_fit", max_length=max_length)
        except ValueError as err:
            raise ModelError(
                f"{name}: its statement and its table's header alone do not fit in max_length={max_length} tokens "
                f"({err}); raise the model's max_length"
            ) from None
        features.append(_features(cut))
    return Encoded(features, truncated)


def token_types_key(features: Sequence[dict]) -> str:
    """A digest of every example's type ids, which decide a TAPAS model's numbers beside its tokens
    (the same tokens in other cells are another input): part of the key its saved blocks resume by."""
    digest = hashlib.sha256()
    for feature in features:
        digest.update(np.asarray(feature["token_type_ids"], dtype=np.int32).tobytes() + b"|")
    return digest.hexdigest()
