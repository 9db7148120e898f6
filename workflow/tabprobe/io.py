"""Atomic writes and schema-checked Parquet reads.

Every output is written to a temporary file beside its destination and renamed into place,
so a killed job never leaves a half-written file that a later run would take as finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tabprobe.errors import CorruptFileError

log = logging.getLogger(__name__)

# Fixed writer settings: the same table always gives the same bytes. Page checksums (CRC32 of
# every data page, checked on read): without them a flipped bit inside a compressed page mostly
# decodes into different values without an error (262 of 295 single-bit flips in a test file).
_PARQUET_OPTIONS = dict(
    compression="zstd", compression_level=3, use_dictionary=True, write_statistics=True, write_page_checksum=True
)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, private: bool = False) -> Iterator[Path]:
    """Yield a temporary path in the destination's folder; rename it onto `path` on success.
    `private`: readable by its owner alone (0600), for a file holding a secret."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    if not private:
        tmp.chmod(0o666 & ~_umask())  # mkstemp makes it private; outputs get the usual permissions
    try:
        yield tmp
        with open(tmp, "rb") as fh:  # on disk before it gets its final name, even after a crash
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary folder beside `path`; move it onto `path` (replacing it) on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it private; outputs get the usual permissions
    try:
        yield tmp
        for inner in tmp.rglob("*"):  # libraries write some files private (safetensors: 0600)
            inner.chmod((0o777 if inner.is_dir() else 0o666) & ~_umask())
        if path.exists():
            shutil.rmtree(path)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def remove_leftovers(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files or folders that `atomic_path`/`atomic_dir` left beside `path`
    when a process writing it was killed (a rename never happened, so nothing else does); both
    call this before writing, so a re-run job leaves nothing of its killed attempt behind.

    Only for the one writer of `path`: Snakemake never runs two jobs for the same output. The
    pattern is exactly the temporary names made for `path`, never those of another output.
    """
    path = Path(path)
    mine = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.tmp")
    removed = []
    if path.parent.is_dir():
        for stale in path.parent.iterdir():
            if mine.fullmatch(stale.name):
                if stale.is_dir() and not stale.is_symlink():
                    shutil.rmtree(stale)
                else:
                    stale.unlink()
                log.info("removed %s, left by an earlier attempt that was killed", stale)
                removed.append(stale)
    return removed


def sha256_file(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_parquet(table: pa.Table, path: str | os.PathLike, schema: pa.Schema) -> None:
    """Write `table` cast to `schema`, atomically, with deterministic settings."""
    with atomic_path(path) as tmp:
        _write_table(table, schema, tmp)


def parquet_bytes(table: pa.Table, schema: pa.Schema) -> bytes:
    """The bytes `write_parquet` would write, for a file written by another process (the
    model server answers an inference job with them)."""
    sink = pa.BufferOutputStream()
    _write_table(table, schema, sink)
    return sink.getvalue().to_pybytes()


def _write_table(table: pa.Table, schema: pa.Schema, where) -> None:
    # The one writer of both, so a file and its bytes sent by the server cannot differ.
    pq.write_table(table.select(schema.names).cast(schema), where, **_PARQUET_OPTIONS)


def read_parquet(path: str | os.PathLike, schema: pa.Schema | tuple[pa.Schema, ...]) -> pa.Table:
    """Read a Parquet file and check it has exactly the declared schema (or exactly one of the
    declared schemas, for a stage that reads tables of any table type: data.tables.TABLES_SCHEMAS).

    A truncated or corrupt file from an earlier run, or one written by another version,
    stops here with its name rather than flowing on silently.
    """
    try:
        # Files written before page checksums have none; only those present are checked.
        with pq.ParquetFile(path, page_checksum_verification=True) as parquet:
            table = parquet.read()
            meta = parquet.metadata
    except (pa.ArrowException, OSError) as err:
        raise CorruptFileError(
            f"{path}: cannot be read as Parquet ({err}). Delete it and re-run the workflow to rebuild it."
        ) from err
    # The footer is not under a checksum: a damaged row count there reads as a shorter table.
    group_rows = sum(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
    if not table.num_rows == meta.num_rows == group_rows:
        raise CorruptFileError(
            f"{path}: damaged Parquet footer (it counts {meta.num_rows} rows, its row groups {group_rows}, "
            f"{table.num_rows} were read). Delete it and re-run the workflow to rebuild it."
        )
    allowed = schema if isinstance(schema, tuple) else (schema,)
    if not any(table.schema.equals(s, check_metadata=False) for s in allowed):
        expected = "\n  or:       ".join(str(s) for s in allowed)
        raise CorruptFileError(
            f"{path}: schema differs from the one this stage expects.\n"
            f"  expected: {expected}\n  found:    {table.schema}\n"
            "Delete the file and re-run the workflow to rebuild it."
        )
    return table


def read_json(path: str | os.PathLike):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json(obj, path: str | os.PathLike, sort_keys: bool = True, private: bool = False) -> None:
    """Write JSON atomically, by default with sorted keys (stable bytes for the same content);
    `sort_keys=False` for an object whose order is itself deterministic and means something;
    `private` for a file its owner alone may read (atomic_path)."""
    with atomic_path(path, private) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n", encoding="utf-8")


def write_text(text: str, path: str | os.PathLike) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def files_below(folder: str | Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files with these suffixes anywhere below `folder`, in sorted order, through symbolic links
    to folders (a set often links its tables from the dataset it was made from)."""
    found, seen = [], set()
    for parent, folders, names in os.walk(folder, followlinks=True):
        seen.add(os.path.realpath(parent))
        folders[:] = [f for f in folders if os.path.realpath(os.path.join(parent, f)) not in seen]  # link loops
        found.extend(Path(parent) / name for name in names if Path(name).suffix in suffixes)
    return sorted(found)
