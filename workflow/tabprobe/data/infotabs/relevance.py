"""Which rows of its table a hypothesis needs (paper section 5.2): the relevance source.

The paper had crowd workers mark the relevant rows of every dev/test pair; those annotations
are not part of InfoTabS (one public batch is: ../shared/infotabs-relevance). tabprobe therefore
takes relevance from one of two sources:

- `annotations`: a file the user has, read by `read_annotations` in either of two formats: a TSV
  with columns table_id, hypothesis, relevant_keys (a JSON list of row keys), or the paper's crowd
  CSV (utahnlp/table_probing: Table ID, Hypothesis, Majority Label, ...), whose bits name the rows
  in the order of the table's JSON keys, title left out, then one bit for "information outside the
  table" (not a row; kept as `Annotation.outside`). Pairs the file does not list have no relevance
  and the evidence probes skip them.
- `aligner`: the automatic aligner (aligner.py: shared words and, with its encoder, MiniLM soft
  matches), measured against rows people marked (bench/relevance.py, docs/relevance.md).

Every evidence number in the report names the source it rests on.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.aligner import Aligner, AlignerSettings
from tabprobe.data.infobox.table import Table, normalised
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.errors import InputDataError, Problem
from tabprobe.io import read_parquet, write_json, write_parquet
from tabprobe.schemas import RELEVANCE

SOURCES = ("aligner", "annotations")
# The keys of config's relevance.aligner: the AlignerSettings fields a user chooses.
ALIGNER_CONFIG_KEYS = ("encoder", "soft_weight", "min_similarity", "min_score", "relative")


ANNOTATION_COLUMNS = ("table_id", "hypothesis", "relevant_keys")
# The crowd file of the paper (utahnlp/table_probing, remaining_annotations.csv): the columns read.
CROWD_COLUMNS = ("Table ID", "Hypothesis", "Majority Label")
OUTSIDE = "none"  # the JSON column's name for the last bit, "information outside the table"

_ANNOTATION_FIX = (
    "give config key relevance.annotations either a TSV with a header line holding table_id, hypothesis and "
    'relevant_keys (a JSON list of the row keys, e.g. ["Born", "Died"]), or the paper\'s crowd CSV with columns '
    "Table ID, Hypothesis and Majority Label (one 0/1 bit per row of the table in its JSON key order, title left "
    "out, then the information-outside-the-table bit), optionally Labels and JSON, which are then checked"
)


@dataclass(frozen=True)
class Annotation:
    """One annotated pair: the keys of its relevant rows (table order for the crowd CSV), whether
    the workers also marked information outside the table (None where the format has no such
    field), and the line of the file it came from."""

    keys: tuple[str, ...]
    outside: bool | None
    line: int


def pair_key(table_id: str, hypothesis: str) -> tuple[str, str]:
    """How an annotated pair is looked up: the hypothesis as ingest writes it (HTML entities
    decoded, runs of whitespace one space), so a file copied from the raw TSVs still matches."""
    from tabprobe.data.infotabs.cleaning import unescape_entities

    return table_id.strip(), " ".join(unescape_entities(hypothesis).split())


def _records(path: Path, text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """(line, fields) of each non-blank record, numbered by the line it starts on (header = 1);
    fields are CSV-quoted, as in the InfoTabS files."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records, start = [], 1
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as err:
        raise InputDataError(
            [
                Problem(
                    str(path),
                    start,
                    f"malformed quoting ({err}): a field that starts with a double quote must end with one, "
                    'and a quote inside it is written twice ("")',
                )
            ],
            _ANNOTATION_FIX,
        ) from None
    return records


def _bits(text: str) -> str | None:
    text = text.strip()
    return text if text and set(text) <= {"0", "1"} else None


def _crowd_annotation(
    where: Mapping[str, int], fields: list[str], tables: Mapping[str, Table] | None
) -> tuple[str, str, list[str], bool] | str:
    """(table_id, hypothesis, keys, outside) of one crowd CSV line, or what is wrong with it."""
    from tabprobe.data.infotabs.cleaning import clean_key

    table_id, hypothesis = fields[where["Table ID"]].strip(), fields[where["Hypothesis"]]
    majority = _bits(fields[where["Majority Label"]])
    if majority is None or len(majority) < 2:
        return f"Majority Label {fields[where['Majority Label']]!r} is not a string of 0/1 bits (one per row, then one more)"
    if "Labels" in where:
        try:
            labels = ast.literal_eval(fields[where["Labels"]].strip())
        except (ValueError, SyntaxError):
            labels = None
        if (
            not isinstance(labels, list)
            or not labels
            or any(not isinstance(b, str) or _bits(b) is None for b in labels)
        ):
            return f"Labels {fields[where['Labels']]!r} is not a Python list of 0/1 bit strings"
        if any(len(b) != len(majority) for b in labels):
            return f"Labels {labels} and Majority Label {majority} differ in length"
        recount = "".join(
            "1" if 2 * sum(b[i] == "1" for b in labels) > len(labels) else "0" for i in range(len(majority))
        )
        if recount != majority:
            return f"Majority Label {majority} is not the per-row majority of Labels {labels} ({recount})"
    named = None
    if "JSON" in where and fields[where["JSON"]].strip():
        try:
            named = json.loads(fields[where["JSON"]], object_pairs_hook=list)
            if not isinstance(named, list) or any(not isinstance(v, str) for _, v in named):
                raise ValueError
        except ValueError:
            return f'JSON {fields[where["JSON"]][:80]!r} is not a JSON object of row -> "0"/"1"'
        if "".join(v.strip() for _, v in named) != majority:
            return f"JSON {dict(named)} does not hold the bits of Majority Label {majority}"
        if named[-1][0] != OUTSIDE:
            return f"JSON's last entry is {named[-1][0]!r}, not {OUTSIDE!r} (information outside the table)"
        named = [clean_key(k, Counter()) for k, _ in named[:-1]]
    if tables is not None and table_id in tables:
        keys = list(tables[table_id].keys)
        if len(majority) != len(keys) + 1:
            return (
                f"Majority Label {majority} has {len(majority)} bits; table {table_id} has {len(keys)} rows, so it "
                f"needs {len(keys) + 1} (one per row, then the information-outside-the-table bit)"
            )
        if named is not None and [normalised(k) for k in named] != [normalised(k) for k in keys]:
            return f"JSON names the rows {named}, but table {table_id} has {keys} in that order: the bits do not match the table"
    elif named is not None:
        keys = named  # a table of another split: the file names its rows
    else:
        return f"table {table_id} is not among the tables read, and the line has no JSON naming its rows"
    relevant = [key for key, bit in zip(keys, majority) if bit == "1"]
    return table_id, hypothesis, relevant, majority[-1] == "1"


def read_annotation_file(
    path: str | Path, tables: Mapping[str, Table] | None = None
) -> dict[tuple[str, str], Annotation]:
    """pair_key(table_id, hypothesis) -> Annotation, from a relevance TSV (ANNOTATION_COLUMNS,
    extra columns ignored) or the paper's crowd CSV (CROWD_COLUMNS, see the module docstring),
    told apart by the header (and the extension where the header says nothing). With `tables`,
    every key must be a row of its table, and a crowd line's bits must fit its table (tables not
    in `tables` belong to other splits and are not checked). Errors name the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InputDataError(
            [Problem(str(path), None, f"cannot read the relevance annotations: {err}")], _ANNOTATION_FIX
        ) from None
    first = text.split("\n", 1)[0]
    crowd = all(c in first for c in CROWD_COLUMNS) or ("\t" not in first and path.suffix.lower() == ".csv")
    problems: list[Problem] = []
    annotations: dict[tuple[str, str], Annotation] = {}
    records = _records(path, text, "," if crowd else "\t")
    header = [c.strip() for c in records[0][1]] if records else []
    needed = CROWD_COLUMNS if crowd else ANNOTATION_COLUMNS
    if any(c not in header for c in needed):
        raise InputDataError([Problem(str(path), 1, f"header {header} lacks one of {list(needed)}")], _ANNOTATION_FIX)
    where = {c: header.index(c) for c in header}
    for line, fields in records[1:]:
        if len(fields) != len(header):
            problems.append(Problem(str(path), line, f"{len(fields)} fields, the header has {len(header)}"))
            continue
        if crowd:
            found = _crowd_annotation(where, fields, tables)
            if isinstance(found, str):
                problems.append(Problem(str(path), line, found))
                continue
            table_id, hypothesis, keys, outside = found
        else:
            table_id, hypothesis, keys_text = (fields[where[c]] for c in ANNOTATION_COLUMNS)
            outside = None
            try:
                keys = json.loads(keys_text)
                if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                    raise ValueError
            except ValueError:
                problems.append(Problem(str(path), line, f"relevant_keys {keys_text!r} is not a JSON list of strings"))
                continue
            table_id = table_id.strip()
            if tables is not None and table_id in tables:
                unknown = [k for k in keys if k not in tables[table_id].keys]
                if unknown:
                    problems.append(
                        Problem(
                            str(path),
                            line,
                            f"keys {unknown} are not rows of table {table_id} (its keys: {list(tables[table_id].keys)})",
                        )
                    )
                    continue
        key = pair_key(table_id, hypothesis)
        # InfoTabS repeats a few table+hypothesis pairs, so a file may annotate a pair twice: alike, or not at all.
        if key in annotations and annotations[key].keys != tuple(keys):
            first = annotations[key]
            problems.append(
                Problem(
                    str(path),
                    line,
                    f"annotates the pair of line {first.line} again, with other rows ({keys}; there {list(first.keys)})",
                )
            )
            continue
        if key in annotations:
            continue
        annotations[key] = Annotation(tuple(keys), outside, line)
    if problems:
        raise InputDataError(problems[:20], _ANNOTATION_FIX, more=max(0, len(problems) - 20))
    return annotations


def read_annotations(path: str | Path, tables: Mapping[str, Table] | None = None) -> dict[tuple[str, str], list[str]]:
    """pair_key(table_id, hypothesis) -> relevant keys, from either annotation format (see
    `read_annotation_file`)."""
    return {pair: list(a.keys) for pair, a in read_annotation_file(path, tables).items()}


def relevance_table(
    examples: pa.Table,
    tables: Mapping[str, Table],
    source: str,
    annotations_path: str | Path | None = None,
    settings: AlignerSettings = AlignerSettings(),
    threads: int = 1,
) -> tuple[pa.Table, dict]:
    """The relevant keys of every example of a split, and a summary (how many have any). The aligner
    runs with `settings` on `threads` threads."""
    if source not in SOURCES:
        raise ValueError(f"relevance source must be one of {SOURCES}, not {source!r}")
    annotations = read_annotations(annotations_path, tables) if source == "annotations" else None
    label = "aligner" if annotations is None else f"annotations:{Path(annotations_path).name}"
    records = examples.select(["uid", "table_id", "hypothesis"]).to_pylist()
    if annotations is None:
        aligned = Aligner(settings, threads).align_all([(r["hypothesis"], tables[r["table_id"]]) for r in records])
    rows = []
    counts = {"examples": 0, "with_relevant_rows": 0, "not_annotated": 0}
    for i, record in enumerate(records):
        counts["examples"] += 1
        if annotations is None:
            keys = aligned[i]
        else:
            keys = annotations.get(pair_key(record["table_id"], record["hypothesis"]))
            if keys is None:
                counts["not_annotated"] += 1
                continue
        counts["with_relevant_rows"] += bool(keys)
        rows.append({"uid": record["uid"], "table_id": record["table_id"], "relevant_keys": keys, "source": label})
    return pa.Table.from_pylist(rows, schema=RELEVANCE), {"source": label, **counts}


def aligner_settings(config: Mapping | None) -> AlignerSettings:
    """AlignerSettings from config key relevance.aligner (the schema fills its defaults; a key it
    leaves out keeps AlignerSettings' default)."""
    given = dict(config or {})
    unknown = sorted(set(given) - set(ALIGNER_CONFIG_KEYS))
    if unknown:
        raise ValueError(f"relevance.aligner: unknown keys {unknown}; known: {list(ALIGNER_CONFIG_KEYS)}")
    return AlignerSettings(**given)


def f1(precision: float | None, recall: float | None) -> float | None:
    """The harmonic mean of precision and recall (0 when both are 0; None when either is undefined)."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def precision_recall(predicted: Mapping[str, Iterable[str]], gold: Mapping[str, Iterable[str]]) -> dict:
    """Row precision and recall (micro: pooled over examples) of `predicted` against `gold`, over
    the uids in `gold`, their F1, and the share of examples whose predicted set is exactly the gold one. An
    example with no gold row adds each row predicted for it to the precision's denominator, nothing
    to recall, and counts as an exact match only when no row is predicted. Keys are compared as
    `normalised` (case and runs of whitespace ignored)."""
    hits = n_pred = n_gold = exact = 0
    for uid, gold_keys in gold.items():
        g = {normalised(k) for k in gold_keys}
        p = {normalised(k) for k in predicted.get(uid, ())}
        hits += len(g & p)
        n_pred += len(p)
        n_gold += len(g)
        exact += g == p
    precision = hits / n_pred if n_pred else None
    recall = hits / n_gold if n_gold else None
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
        "exact": exact / len(gold) if gold else None,
        "examples": len(gold),
        "gold_rows": n_gold,
        "predicted_rows": n_pred,
        "hits": hits,
    }


__all__ = [
    "ALIGNER_CONFIG_KEYS",
    "Annotation",
    "RELEVANCE",
    "SOURCES",
    "aligner_settings",
    "f1",
    "pair_key",
    "precision_recall",
    "read_annotation_file",
    "read_annotations",
    "relevance_table",
]


log = logging.getLogger(__name__)


def find_relevant_rows(
    examples_path: str,
    tables_path: str,
    out: str,
    summary_out: str,
    source: str,
    annotations_path: str | None = None,
    aligner: Mapping | None = None,
    threads: int = 1,
) -> None:
    """Rule find_relevant_rows: which rows each hypothesis needs (annotations, or the aligner with the
    settings of config key relevance.aligner)."""
    examples = read_parquet(examples_path, schemas.EXAMPLES)
    tables = infotabs.load_tables(read_parquet(tables_path, infobox.TABLES))
    found, summary = relevance_table(examples, tables, source, annotations_path, aligner_settings(aligner), threads)
    write_parquet(found, out, schemas.RELEVANCE)
    write_json(summary, summary_out)
    log.info(
        "relevance (%s): %d of %d examples have relevant rows",
        summary["source"],
        summary["with_relevant_rows"],
        summary["examples"],
    )
