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
- `aligner`: an automatic word aligner (`align`). It scores each row by the hypothesis words
  found in its values (exact words, crude stems, numbers and years; rarer matches within the
  table weigh more), by the words of its key, and by cue words that name a key without using
  it ("married" -> Spouse). The hypothesis's mention of the title is removed first, so a row
  that repeats the title does not look relevant, and so are the nouns that name the subject's
  kind ("the film", "the album") from value matching. A year, decade or century that no row
  states points at the rows that hold a year. Its row precision and recall on rows people marked
  and on a hand-checked gold set are measured by bench/relevance.py and tested
  (tests/test_relevance.py).

Every evidence number in the report names the source it rests on.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from .errors import InputDataError, Problem
from .schemas import RELEVANCE
from .table import Table, normalised
from .wordlists import word_list, word_set, word_set_map

SOURCES = ("aligner", "annotations")


_STOPWORDS = word_set("words/stopwords.txt")

_MONTHS = {m.lower(): i for i, m in enumerate(word_list("words/months.txt"), 1)}

# Words that point at a row although its key is not said: "married" names Spouse. Keys are
# matched on their stemmed words (see _key_cues), so "Spouse(s)" and "Spouses" share a line. A cue
# written "=word" matches that word only as written, not stemmed.
_CUES: dict[str, set[str]] = word_set_map("words/key_cues.txt")


# Nationality adjectives and the country words a table writes instead ("Spanish" -> Spain).
_DEMONYMS = word_set_map("words/demonyms.txt")


# Nouns a hypothesis uses to name its subject's kind ("The album Currents", "the film"): like the
# title's words, they are not matched against values ("Working Title Films" is not about "the film").
_SUBJECT_NOUNS = word_set("words/subject_nouns.txt")


def _stem(word: str) -> str:
    """A crude suffix stripper: enough to match "albums"/"album", "married"/"marry"."""
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


_SUBJECT_STEMS = frozenset(_stem(w) for w in _SUBJECT_NOUNS)
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_TIME = re.compile(r"1[5-9]\d\d|20\d\d|(1[5-9]|20)?\d0s|\d\dth")  # a year, a decade, a century
_WORD = re.compile(r"\d+(?:[.,:]\d+)*(?:s|th|st|nd|rd)?\b|[a-z][a-z'\-]*|\d+(?:[.,:]\d+)*")


def _words(text: str) -> list[str]:
    """Lower-cased words and numbers; a possessive's "'s" is dropped ("Rica's" is the title's "Rica")."""
    text = re.sub(r"\bu\.\s?s\.?(?=\W|$)", "usa", text.lower().replace("\u2019", "'"))
    words = (re.sub(r"'s$", "", w).strip("'-") for w in _WORD.findall(text))
    return [w for w in words if w]


def _numbers(words: Iterable[str], decades: bool = True) -> set[str]:
    """Numbers as written, without thousands commas; with `decades`, a year also as its decade and
    century, so that a hypothesis's "1970s" matches a row's 1975 (the hypothesis's own years are read
    without: its 2016 must not match a row's 2015 through "2010s")."""
    out = set()
    for w in words:
        if w[0].isdigit():
            plain = w.replace(",", "")
            out.add(plain)
            if ":" in plain:  # a duration "46:06" is also its minutes, "46"
                out.add(plain.split(":")[0])
            if decades and _YEAR.fullmatch(plain):
                out |= {plain[:3] + "0s", plain[2] + "0s", f"{int(plain[:2]) + 1}th"}  # 1970s, 70s, 20th century
        elif re.fullmatch(r"(1[5-9]|20)\d0s|\d0s|\d\dth", w):
            out.add(w)
    return out


def _content(words: Iterable[str]) -> set[str]:
    out = set()
    for w in words:
        if w not in _STOPWORDS and not w[0].isdigit() and len(w) > 1:
            out.add(_stem(w))
            out |= {_stem(d) for d in _DEMONYMS.get(w, ())}
    return out


def _prefix_matches(hypothesis_words: set[str], row_words: set[str]) -> set[str]:
    """Row words that share a stem of at least 5 letters with a hypothesis word, one being a prefix
    of the other ("music"/"musician", "wrestl"/"wrestler"): derivations the stemmer misses."""
    return {
        r
        for r in row_words
        for h in hypothesis_words
        if r != h and min(len(r), len(h)) >= 5 and (r.startswith(h) or h.startswith(r))
    }


def _key_cues(key: str) -> set[str]:
    cues: set[str] = set()
    lowered = key.lower()
    for word in _words(lowered):
        for form in (word, _stem(word)):
            cues |= _CUES.get(form, set())
    for phrase, words in _CUES.items():
        if " " in phrase and phrase in lowered:
            cues |= words
    exact = {c[1:] for c in cues if c.startswith("=")}
    cues -= {"=" + c for c in exact}
    # both "minute" and the stem of "minutes" ("minut"): the stemmer treats the two differently
    return {_stem(c) for c in cues} | {_stem(c + "s") for c in cues} | set(cues) | exact


@dataclass(frozen=True)
class AlignerSettings:
    # A row is relevant when its score is at least `min_score` and at least `relative` times the
    # best row's score (a hypothesis usually needs one or two rows).
    min_score: float = 0.5
    relative: float = 0.3
    value_weight: float = 1.0
    number_weight: float = 2.0
    key_weight: float = 1.5
    cue_weight: float = 1.0


def row_scores(hypothesis: str, table: Table, settings: AlignerSettings = AlignerSettings()) -> list[float]:
    """How strongly each row of `table` is tied to the hypothesis (see the module docstring)."""
    # The title's words are removed from the hypothesis before matching: the hypothesis names its
    # subject, and a row that repeats the title is not evidence for that.
    title = set(_words(table.title))
    words = _words(hypothesis)
    content = _content(w for w in words if w not in title)
    value_wanted = content - _SUBJECT_STEMS
    raw = set(words) - title
    numbers = _numbers(words, decades=False)
    for w in words:
        if w in _MONTHS:
            numbers.add(w)
    rows = []
    for row in table.rows:
        value_words = [w for v in row.values for w in _words(v)]
        rows.append(
            (
                _content(w for w in value_words if w not in title) | {w for w in value_words if w in _MONTHS},
                _numbers(value_words) | {w for w in value_words if w in _MONTHS},
                _content(_words(row.key)),
                _key_cues(row.key),
            )
        )
    # A word found in many rows tells little about which one is meant: weight 1/rows it is in.
    df: dict[str, int] = {}
    for value_content, value_numbers, _, _ in rows:
        for w in (value_content & value_wanted) | (value_numbers & numbers):
            df[w] = df.get(w, 0) + 1
    # A hypothesis that speaks of a year, decade or century that no row states ("painted in the 17th
    # century", a row saying 1849) is about the rows that hold a year: they share one word's weight.
    year_rows = []
    if any(_TIME.fullmatch(n) for n in numbers) and not any(vn & numbers for _, vn, _, _ in rows):
        year_rows = [any(_YEAR.fullmatch(n) for n in vn) for _, vn, _, _ in rows]
    n_year_rows = sum(year_rows)
    scores = []
    for i, (value_content, value_numbers, key_content, cues) in enumerate(rows):
        score = settings.value_weight / n_year_rows if year_rows and year_rows[i] else 0.0
        score += sum(settings.value_weight / df[w] for w in value_content & value_wanted)
        score += 0.5 * settings.value_weight * bool(_prefix_matches(value_wanted, value_content - content))
        score += sum(settings.number_weight / df[w] for w in value_numbers & numbers)
        score += settings.key_weight * len(key_content & content)
        if cues & (content | raw):
            score += settings.cue_weight
        scores.append(score)
    return scores


def align(hypothesis: str, table: Table, settings: AlignerSettings = AlignerSettings()) -> list[str]:
    """The keys of the rows the hypothesis needs, by the aligner, in table order."""
    scores = row_scores(hypothesis, table, settings)
    if not scores:
        return []
    best = max(scores)
    cut = max(settings.min_score, settings.relative * best)
    return [row.key for row, score in zip(table.rows, scores) if score >= cut]


# ---------------------------------------------------------------- annotation files

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
    from .infotabs import unescape_entities

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
    from .infotabs import clean_key

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
) -> tuple[pa.Table, dict]:
    """The relevant keys of every example of a split, and a summary (how many have any)."""
    if source not in SOURCES:
        raise ValueError(f"relevance source must be one of {SOURCES}, not {source!r}")
    annotations = read_annotations(annotations_path, tables) if source == "annotations" else None
    label = "aligner" if annotations is None else f"annotations:{Path(annotations_path).name}"
    rows = []
    counts = {"examples": 0, "with_relevant_rows": 0, "not_annotated": 0}
    for record in examples.select(["uid", "table_id", "hypothesis"]).to_pylist():
        counts["examples"] += 1
        table = tables[record["table_id"]]
        if annotations is None:
            keys = align(record["hypothesis"], table, settings)
        else:
            keys = annotations.get(pair_key(record["table_id"], record["hypothesis"]))
            if keys is None:
                counts["not_annotated"] += 1
                continue
        counts["with_relevant_rows"] += bool(keys)
        rows.append({"uid": record["uid"], "table_id": record["table_id"], "relevant_keys": keys, "source": label})
    return pa.Table.from_pylist(rows, schema=RELEVANCE), {"source": label, **counts}


def precision_recall(predicted: Mapping[str, Iterable[str]], gold: Mapping[str, Iterable[str]]) -> dict:
    """Row precision and recall (micro: pooled over examples) of `predicted` against `gold`, over
    the uids in `gold`, and the share of examples whose predicted set is exactly the gold one. An
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
    return {
        "precision": hits / n_pred if n_pred else None,
        "recall": hits / n_gold if n_gold else None,
        "exact": exact / len(gold) if gold else None,
        "examples": len(gold),
        "gold_rows": n_gold,
        "predicted_rows": n_pred,
        "hits": hits,
    }


__all__ = [
    "AlignerSettings",
    "Annotation",
    "RELEVANCE",
    "SOURCES",
    "align",
    "pair_key",
    "precision_recall",
    "read_annotation_file",
    "read_annotations",
    "relevance_table",
    "row_scores",
]
