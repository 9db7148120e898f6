import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.errors import CorruptFileError
from tabprobe.io import atomic_path, read_parquet, write_parquet


def examples():
    return pa.table(
        {"uid": ["dev:2"], "table_id": ["T1"], "hypothesis": ["h"], "label": ["E"]}, schema=schemas.EXAMPLES
    )


def test_round_trip_and_byte_identical_rewrites(tmp_path):
    write_parquet(examples(), tmp_path / "a.parquet", schemas.EXAMPLES)
    write_parquet(examples(), tmp_path / "b.parquet", schemas.EXAMPLES)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert read_parquet(tmp_path / "a.parquet", schemas.EXAMPLES).equals(examples())


def test_truncated_parquet_is_detected_with_its_name(tmp_path):
    path = tmp_path / "a.parquet"
    write_parquet(examples(), path, schemas.EXAMPLES)
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(CorruptFileError, match=r"a\.parquet: cannot be read as Parquet.*Delete it and re-run"):
        read_parquet(path, schemas.EXAMPLES)


def test_wrong_schema_is_detected(tmp_path):
    path = tmp_path / "a.parquet"
    write_parquet(examples(), path, schemas.EXAMPLES)
    with pytest.raises(CorruptFileError, match="schema differs"):
        read_parquet(path, infobox.TABLES)


def test_failed_write_leaves_nothing_behind(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "out.json") as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
