"""Fetching the official InfoTabS data at a pinned commit, and checking it against checksums.

The checksums (data/infotabs/infotabs.sha256.json) were computed from the files of that commit; a
downloaded or local copy whose files differ is refused, so every run probes the same data.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zlib
from importlib import resources
from pathlib import Path

from tabprobe.data.infotabs import reading as infotabs
from tabprobe.errors import DownloadError
from tabprobe.io import sha256_file

log = logging.getLogger(__name__)

INFOTABS_COMMIT = "34e7dc0900a0d861ad62be3d7371d8eb0aace4fe"
INFOTABS_URL = f"https://github.com/infotabs/infotabs/archive/{INFOTABS_COMMIT}.tar.gz"
# The files tabprobe reads; the rest of the repository (html tables, templates) is not kept.
CHECKED_FILES = (
    "data/maindata/infotabs_train.tsv",
    "data/maindata/infotabs_dev.tsv",
    "data/maindata/infotabs_test_alpha1.tsv",
    "data/maindata/infotabs_test_alpha2.tsv",
    "data/maindata/infotabs_test_alpha3.tsv",
    CATEGORIES_FILE := "data/tables/table_categories.tsv",
)
TABLES_GLOB = "data/tables/json/*.json"
KEEP_PREFIXES = ("data/maindata/", "data/tables/json/", "data/tables/table_categories.tsv")
LOCAL_COPY_HINT = (
    "Point the workflow at a local copy instead: set `infotabs_dir: /path/to/infotabs` in config.yaml "
    "or run `snakemake --cores all --config infotabs_dir=/path/to/infotabs` (the folder that holds "
    "data/maindata/ and data/tables/json/; on the project machines it is ../shared/infotabs)."
)


# Where download_infotabs puts the pinned commit (rule download_infotabs).
DOWNLOADED = "resources/infotabs"


def infotabs_root(config) -> str:
    """The InfoTabS folder every stage reads: the user's local copy (config `infotabs_dir`), or
    the downloaded one."""
    return config.get("infotabs_dir") or DOWNLOADED


def downloads(config) -> list[str]:
    """The downloaded copy, when there is no local one: then the download is an input of the check."""
    return [] if config.get("infotabs_dir") else [DOWNLOADED]


_TABLES_DIGEST: dict[str, str] = {}


def copy_digest(config, split: str) -> str:
    """What the split of the copy the workflow reads is (split_digest), for the ingest's params: the
    same data given as a relative path, an absolute one, from a moved checkout or a cluster node that
    mounts it elsewhere is the same data and re-runs nothing, while an edited line or table (even one
    edited in place) re-checks and re-ingests its split. The tables' digest is taken once per process."""
    root = config.get("infotabs_dir")
    if not root:
        return f"official InfoTabS {INFOTABS_COMMIT}"
    if root not in _TABLES_DIGEST:
        _TABLES_DIGEST[root] = tables_digest(Path(root))
    return split_digest(root, split, tables=_TABLES_DIGEST[root])


def provenance(config) -> dict:
    """The run record's word on the copy the numbers rest on."""
    return {
        "source": config.get("infotabs_dir") or f"downloaded: infotabs/infotabs@{INFOTABS_COMMIT[:12]}",
        "checked_against_release": bool(config.get("infotabs_verify", True)),
    }


def tables_digest(root: Path) -> str:
    """One sha256 over all table files: name and content hash of each, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(root.glob(TABLES_GLOB)):
        digest.update(f"{path.name}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def split_digest(root: str | Path, split: str, tables: str | None = None) -> str:
    """What one split of a copy is, by content: its TSV, the categories and every table
    (`tables`: their `tables_digest`, when the caller has it already). Two spellings of one
    folder (`../shared/infotabs`, `/work/shared/infotabs`), a copy elsewhere or a moved checkout
    give the same digest; an edited table or line gives another."""
    root = Path(root)
    files = [infotabs.split_tsv(root, split), root / CATEGORIES_FILE]
    parts = [f"{path.relative_to(root)}\t{sha256_file(path) if path.is_file() else '-'}" for path in files]
    return hashlib.sha256("\n".join([*parts, tables or tables_digest(root)]).encode()).hexdigest()


def compute_checksums(root: str | Path) -> dict[str, str]:
    root = Path(root)
    sums = {name: sha256_file(root / name) for name in CHECKED_FILES if (root / name).exists()}
    sums[TABLES_GLOB] = tables_digest(root)
    return sums


def pinned_checksums(file_name: str) -> dict[str, str]:
    """The sha256 sums shipped for a pinned release (beside this module: data/infotabs/<file_name>)."""
    return json.loads(resources.files(__package__).joinpath(file_name).read_text())


def differing_files(root: Path, expected: dict[str, str], found: dict[str, str]) -> list[str]:
    """One line per file of a release that is missing or whose sha256 differs."""
    return [
        f"{root / name}: {'missing' if name not in found else 'sha256 differs'}"
        for name in expected
        if found.get(name) != expected[name]
    ]


def expected_checksums() -> dict[str, str]:
    return pinned_checksums("infotabs.sha256.json")


def verify(root: str | Path) -> None:
    """Raise DownloadError naming every file that differs from the pinned commit."""
    root = Path(root)
    if not (root / "data" / "maindata").is_dir():
        raise DownloadError(f"{root}: not an InfoTabS folder (no data/maindata/). {LOCAL_COPY_HINT}")
    bad = differing_files(root, expected_checksums(), compute_checksums(root))
    if bad:
        raise DownloadError(
            "InfoTabS files differ from the official commit "
            f"{INFOTABS_COMMIT[:12]}:\n  " + "\n  ".join(bad) + "\nRe-download (delete the folder and re-run), "
            "or, to use a modified copy on purpose, set `infotabs_verify: false` in config.yaml."
        )


def _extract_data_files(archive: tarfile.TarFile, dest: Path, keep: tuple[str, ...] = KEEP_PREFIXES) -> int:
    """Write the regular files under the `keep` prefixes (paths below the archive's top folder),
    with that top folder stripped. Files are copied one by one (no links, no devices, nothing
    outside `dest`), so a hostile archive cannot write elsewhere, on any Python 3.11 (extractall's
    filter= needs 3.11.4)."""
    written = 0
    root = dest.resolve()
    for member in archive:
        parts = Path(member.name).parts
        if not member.isfile() or len(parts) < 2 or member.name.startswith("/") or ".." in parts:
            continue
        inner = "/".join(parts[1:])
        if not inner.startswith(keep):
            continue
        target = (dest / inner).resolve()
        if root not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.extractfile(member) as source, target.open("wb") as out:
            shutil.copyfileobj(source, out)
        written += 1
    return written


def fetch_release(
    dest: str | Path, url: str, keep: tuple[str, ...], verify_copy, what: str, hint: str, timeout: float = 30.0
) -> None:
    """Download a tar.gz release, keep the files under `keep`, check them with `verify_copy`
    (which raises DownloadError), then move them into `dest`: nothing half-downloaded or
    unverified ever sits at `dest`."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{dest.name}-") as tmp:
        archive_path = Path(tmp) / "release.tar.gz"
        log.info("downloading %s", url)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response, archive_path.open("wb") as out:
                shutil.copyfileobj(response, out)
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise DownloadError(f"cannot download {what} from {url}: {reason}. {hint}") from err
        extracted = Path(tmp) / "release"
        try:
            with tarfile.open(archive_path) as archive:
                _extract_data_files(archive, extracted, keep)
        except (tarfile.TarError, EOFError, zlib.error, OSError) as err:  # truncated transfers end up here
            raise DownloadError(f"{url}: not a readable tar.gz archive ({err}). {hint}") from err
        verify_copy(extracted)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(extracted, dest)


def download(dest: str | Path, url: str = INFOTABS_URL, timeout: float = 30.0) -> None:
    """Download the archive, keep the data files, verify them, then move them into `dest`."""
    fetch_release(dest, url, KEEP_PREFIXES, verify, "InfoTabS", LOCAL_COPY_HINT, timeout)
    log.info("InfoTabS at %s verified against commit %s", dest, INFOTABS_COMMIT[:12])


def download_infotabs(dest: str, url: str, timeout: float) -> None:
    """Rule download_infotabs: fetch the official InfoTabS release (when no local copy is named)."""
    download(dest, url=url, timeout=timeout)
