"""External probe sets: a folder in InfoTabS format, scored like a built-in probe.

The folder holds exactly one TSV (columns table_id, hypothesis, label; extra columns are kept
in provenance) and the tables as `<table_id>.json` anywhere below it (InfoTabS layout or
flat). Table ids need not be T<number>: counterfactual copies such as `T12A` are common.

Each line is paired with the gold example of the split it was made from, for the paired
numbers (drop from the original, paper Table 8): by an `orig_uid` column when there is one
(e.g. `alpha1:17`), else by the same hypothesis on the table whose id is the line's id
without its trailing letters (`T12A` -> `T12`) or the id itself. Lines that pair with nothing
are still scored, and counted.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infotabs.reading import _Problems, read_hypotheses, read_table
from tabprobe.errors import InputDataError, Problem
from tabprobe.io import files_below, read_parquet, write_json, write_parquet

_FIX = (
    "an external probe set is a folder with one TSV (header: table_id, hypothesis, label; labels E, N or C; "
    "extra columns allowed) and a <table_id>.json InfoTabS table for every table_id it names"
)


def set_files(folder: str | Path) -> tuple[Path, dict[str, Path]]:
    """The set's TSV and its tables by id; errors name the folder and what is wrong."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputDataError([Problem(str(folder), None, "not a folder")], _FIX)
    files = files_below(folder, (".tsv", ".json"))
    tsvs = [p for p in files if p.suffix == ".tsv"]
    if len(tsvs) != 1:
        found = ", ".join(str(p.relative_to(folder)) for p in tsvs) or "none"
        raise InputDataError([Problem(str(folder), None, f"needs exactly one .tsv file, found {found}")], _FIX)
    tables: dict[str, Path] = {}
    problems = []
    for path in (p for p in files if p.suffix == ".json"):
        if path.stem in tables:
            problems.append(Problem(str(path), None, f"table {path.stem} is also in {tables[path.stem]}"))
        tables[path.stem] = path
    if problems:
        raise InputDataError(problems, _FIX)
    return tsvs[0], tables


def _base_table_id(table_id: str) -> str:
    """`T12A` -> `T12`: the table a counterfactual copy was made from (InfoTabS ids are T<number>)."""
    match = re.fullmatch(r"(T\d+)[A-Za-z]+", table_id)
    return match.group(1) if match else table_id


def read_external_set(folder: str | Path, name: str, split: str, gold_examples: pa.Table) -> tuple[pa.Table, dict]:
    """The set as probe examples (infobox.PROBE_EXAMPLES) and a coverage summary."""
    tsv, table_files = set_files(folder)
    problems = _Problems()
    lines = read_hypotheses(tsv, problems)
    gold = gold_examples.to_pylist()
    by_uid = {g["uid"]: g for g in gold}
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for g in gold:
        by_pair.setdefault((g["table_id"], g["hypothesis"].strip()), []).append(g)
    tables = {}
    for line in lines:
        if line.table_id not in tables:
            path = table_files.get(line.table_id)
            if path is None:
                problems.add(tsv, line.line, f"table {line.table_id} has no file {line.table_id}.json in {folder}")
                tables[line.table_id] = None
                continue
            tables[line.table_id] = read_table(path, line.table_id, None, problems)
    # The columns beyond the three InfoTabS ones, per line: kept in provenance, orig_uid pairs.
    pairs = {}
    for line in lines:
        extra = line.extra
        if "orig_uid" in extra:
            if extra["orig_uid"] not in by_uid:
                problems.add(tsv, line.line, f"orig_uid {extra['orig_uid']!r} is not an example of {split}")
                continue
            pairs[line.line] = by_uid[extra["orig_uid"]]
            continue
        matches = by_pair.get((_base_table_id(line.table_id), line.hypothesis)) or by_pair.get(
            (line.table_id, line.hypothesis)
        )
        if matches:
            pairs[line.line] = matches[0]
    problems.raise_if_any(fix=_FIX)
    rows = []
    for line in lines:
        original = pairs.get(line.line)
        uid = f"{name}:{line.line}"
        rows.append(
            {
                "uid": uid,
                "orig_uid": original["uid"] if original else uid,
                "table_id": line.table_id,
                "hypothesis": line.hypothesis,
                "label": original["label"] if original else line.label,
                "probe": name,
                "table": tables[line.table_id].to_arrow(),
                "expected": line.label,
                "provenance": json.dumps(
                    {
                        "source": str(tsv),
                        "line": line.line,
                        "paired_with": original["uid"] if original else None,
                        "extra": line.extra,
                    },
                    sort_keys=True,
                    ensure_ascii=False,
                ),
            }
        )
    unpaired = sum(1 for line in lines if line.line not in pairs)
    coverage = {
        "probe": name,
        "gold": len(lines),
        "perturbed": len(lines),
        "probe_examples": len(lines),
        "skipped": {f"scored, but paired with no gold example of {split}": unpaired} if unpaired else {},
        "source": str(folder),
    }
    return pa.Table.from_pylist(rows, schema=infobox.PROBE_EXAMPLES), coverage


__all__ = ["read_external_set", "set_files"]


log = logging.getLogger(__name__)


def ingest_external_probe(
    probe: str,
    split: str,
    folder: str,
    examples_path: str,
    out: str,
    coverage_out: str,
    original_path: str | None = None,
) -> None:
    """Rule ingest_external_probe: an external probe set in InfoTabS format, read as it is.
    `original_path`: the `original` probe's examples of the split, when it runs there: paired lines
    whose gold example it left out (its cap) are counted, as the paired drop cannot use them."""
    probe_examples, coverage = read_external_set(folder, probe, split, read_parquet(examples_path, schemas.EXAMPLES))
    if original_path:
        originals = set(read_parquet(original_path, infobox.PROBE_EXAMPLES)["orig_uid"].to_pylist())
        outside = sum(
            1
            for uid, orig in zip(probe_examples["uid"].to_pylist(), probe_examples["orig_uid"].to_pylist())
            if uid != orig and orig not in originals
        )
        if outside:
            coverage["skipped"][
                f"scored, but its gold example is outside `original`'s {len(originals)} (its cap): "
                "not in the paired drop"
            ] = outside
    write_parquet(probe_examples, out, infobox.PROBE_EXAMPLES)
    write_json({"split": split, "limit": None, **coverage}, coverage_out)
    log.info(
        "%s: %d examples from %s (%s)", probe, probe_examples.num_rows, folder, coverage["skipped"] or "all paired"
    )
