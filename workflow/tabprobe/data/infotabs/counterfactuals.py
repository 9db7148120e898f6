"""The paper's hand-made label-flipped counterfactual tables (section 6, Tables 7, 8 and 12).

Annotators edited an InfoTabS table so that an ENTAIL hypothesis becomes CONTRADICT, or the
reverse, keeping the hypothesis. The release (utahnlp/table_probing, branch `atreya`, commit
COMMIT, Apache-2.0) holds 1,127 pairs made from alpha1 and 1,109 from train, in InfoTabS format:

    data/counterfactuals/{alpha1,training}/cf_<folder>_anonymized.tsv
    data/counterfactuals/{alpha1,training}/tables_mod_json/T<n>_mod_<k>.json   the edited tables

The TSV (CRLF, CSV quoting in two train lines) has the columns COLUMNS; `s.no` is always 0 and
`modified_hypothesis` always equals the original. The paper reports 942 (alpha1) and 885 (train)
pairs after an annotators' cross-check that the release does not mark, so every released pair is
read. A copy is checked against the release's checksums (data/infotabs/human_counterfactuals.sha256.json),
as InfoTabS is, and each line is validated: bad input names its file and line.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tabprobe.data.infobox.table import Table
from tabprobe.data.infotabs import download
from tabprobe.data.infotabs.cleaning import clean_cell
from tabprobe.data.infotabs.reading import _Problems, read_table, read_tsv
from tabprobe.errors import DownloadError, InputDataError, Problem
from tabprobe.io import sha256_file

COMMIT = "2faf898166a3f1e83b6cc50aaa71775e6b605de1"
URL = f"https://github.com/utahnlp/table_probing/archive/{COMMIT}.tar.gz"
KEEP_PREFIXES = ("data/counterfactuals/",)
# Where download_counterfactuals puts the release, where no local copy is named.
DOWNLOADED = "resources/infotabs-counterfactuals"
# The InfoTabS split each folder was made from.
FOLDERS = {"alpha1": "alpha1", "train": "training"}
COLUMNS = (
    "s.no",
    "worker_id",
    "original_tableid",
    "original_hypothesis",
    "original_label",
    "modified_tableid",
    "modified_hypothesis",
    "modified_label",
)
PAPER_COUNTS = {"alpha1": 942, "train": 885}  # section 6, after the cross-check
LOCAL_COPY_HINT = (
    "Point the workflow at a local copy instead: set `counterfactuals_dir: /path/to/copy` in config.yaml (the "
    "folder that holds data/counterfactuals/; on the project machines ../shared/infotabs-counterfactuals), or leave "
    "`cf_human` out of `probes:`."
)
_FIX = (
    "a hand-made counterfactual set is data/counterfactuals/<alpha1|training>/cf_<folder>_anonymized.tsv (columns "
    f"{', '.join(COLUMNS)}; labels E or C, the modified label the other one) with each modified table in "
    "tables_mod_json/<modified_tableid>.json; restore the file from the release"
)


@dataclass(frozen=True)
class Counterfactual:
    """One hand-made pair: the gold example it was made from and its edited table."""

    source: str  # file:line
    worker: str
    table_id: str
    hypothesis: str
    label: str  # the gold label of the original pair
    modified_table_id: str
    table: Table  # the edited table, under the original table's id
    expected: str  # the label after the edit


def split_folder(root: str | Path, split: str) -> Path:
    if split not in FOLDERS:
        raise ValueError(f"the hand-made counterfactuals exist for {', '.join(FOLDERS)} only, not {split!r}")
    return Path(root) / "data" / "counterfactuals" / FOLDERS[split]


def split_tsv(root: str | Path, split: str) -> Path:
    return split_folder(root, split) / f"cf_{FOLDERS[split]}_anonymized.tsv"


def root_of(path: str | Path) -> Path:
    """The copy a rule's input names: the copy's folder itself, or a split's TSV in it."""
    path = Path(path)
    return path if path.is_dir() else path.parents[3]  # <root>/data/counterfactuals/<folder>/<tsv>


def split_files(root: str | Path, split: str) -> list[Path]:
    """The files a split's pairs are read from: its TSV and its edited tables."""
    return [split_tsv(root, split), *sorted((split_folder(root, split) / "tables_mod_json").glob("*.json"))]


def read_split(root: str | Path, split: str, categories: dict[str, str | None] | None = None) -> list[Counterfactual]:
    """Every pair of a split, validated; InputDataError lists every bad line with its file and line.
    `categories`: table id -> InfoTabS category, given to the edited tables."""
    problems = _Problems()
    tsv = split_tsv(root, split)
    read = read_tsv(tsv, problems)
    if read is None:
        problems.raise_if_any(_FIX)
    header, rows = read or ([], [])
    if tuple(header) != COLUMNS:
        problems.add(tsv, 1, f"header is {header}, expected {list(COLUMNS)}")
        problems.raise_if_any(_FIX)
    out = []
    tables_dir = split_folder(root, split) / "tables_mod_json"
    for line, cells in rows:
        if len(cells) != len(COLUMNS):
            problems.add(tsv, line, f"has {len(cells)} tab-separated columns, the header has {len(COLUMNS)}")
            continue
        cell = dict(zip(COLUMNS, (c.strip() for c in cells)))
        before, after = cell["original_label"], cell["modified_label"]
        if before not in ("E", "C") or after not in ("E", "C"):
            problems.add(tsv, line, f"labels {before!r} -> {after!r}: each must be E or C (the set flips E and C)")
            continue
        if before == after:
            problems.add(tsv, line, f"the modified label {after} is the original one: a label-flipped pair flips it")
            continue
        if cell["modified_hypothesis"] != cell["original_hypothesis"]:
            problems.add(
                tsv, line, "modified_hypothesis differs from original_hypothesis: the set keeps the hypothesis"
            )
            continue
        path = tables_dir / f"{cell['modified_tableid']}.json"
        if not path.is_file():
            problems.add(tsv, line, f"modified table {cell['modified_tableid']} has no file {path}")
            continue
        table_id = cell["original_tableid"]
        table = read_table(path, table_id, (categories or {}).get(table_id), problems)
        if table is None:
            continue
        out.append(
            Counterfactual(
                f"{tsv}:{line}",
                cell["worker_id"],
                table_id,
                clean_cell(cell["original_hypothesis"], Counter()),
                before,
                cell["modified_tableid"],
                table,
                after,
            )
        )
    problems.raise_if_any(_FIX)
    if not out:
        raise InputDataError([Problem(str(tsv), 1, "has a header but no pairs below it")], _FIX)
    return out


def by_example(pairs: list[Counterfactual]) -> dict[tuple[str, str], list[Counterfactual]]:
    """(table id, hypothesis) -> its hand-made counterfactuals (two train examples have two)."""
    index: dict[tuple[str, str], list[Counterfactual]] = {}
    for pair in pairs:
        index.setdefault((pair.table_id, pair.hypothesis), []).append(pair)
    return index


# ----------------------------------------------------------------------------- the release


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.name}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def compute_checksums(root: str | Path) -> dict[str, str]:
    """sha256 of each split's TSV, and one over each of its table folders."""
    sums = {}
    for split in FOLDERS:
        folder = split_folder(root, split)
        tsv = split_tsv(root, split)
        if tsv.is_file():
            sums[str(tsv.relative_to(root))] = sha256_file(tsv)
        for tables in ("tables_json", "tables_mod_json"):
            found = sorted((folder / tables).glob("*.json"))
            if found:
                sums[f"{folder.relative_to(root)}/{tables}/*.json"] = _digest(found)
    return sums


def expected_checksums() -> dict[str, str]:
    return download.pinned_checksums("human_counterfactuals.sha256.json")


def verify(root: str | Path) -> None:
    """Raise DownloadError naming every file that differs from the release."""
    root = Path(root)
    if not (root / "data" / "counterfactuals").is_dir():
        raise DownloadError(
            f"{root}: not a copy of the hand-made counterfactuals (no data/counterfactuals/). {LOCAL_COPY_HINT}"
        )
    bad = download.differing_files(root, expected_checksums(), compute_checksums(root))
    if bad:
        raise DownloadError(
            f"hand-made counterfactual files differ from the release {COMMIT[:12]}:\n  "
            + "\n  ".join(bad)
            + "\nRe-download (delete the folder and re-run), or, to use a modified copy on purpose, set "
            "`counterfactuals_verify: false` in config.yaml."
        )


def download_release(dest: str | Path, url: str = URL, timeout: float = 30.0) -> None:
    download.fetch_release(dest, url, KEEP_PREFIXES, verify, "the hand-made counterfactuals", LOCAL_COPY_HINT, timeout)


def download_counterfactuals(dest: str, url: str, timeout: float) -> None:
    """Rule download_counterfactuals: fetch the paper's hand-made counterfactual release (when no local
    copy is named)."""
    download_release(dest, url=url, timeout=timeout)
