"""download.py without internet: archives built under tmp_path and served from 127.0.0.1.

The real InfoTabS files go into archives under tmp_path only, never into the repository.
"""

from __future__ import annotations

import functools
import http.server
import io
import shutil
import socket
import tarfile
import threading
import time
from pathlib import Path

import pytest

from tabprobe.data.infotabs import download
from tabprobe.errors import DownloadError

TOP = f"infotabs-{download.INFOTABS_COMMIT}"


# ---------------------------------------------------------------------------------------------- helpers


def kept_files(root: Path) -> list[str]:
    """Paths (relative, posix) of the files download() keeps: maindata, table JSONs, categories."""
    files = [p for p in (root / "data" / "maindata").iterdir() if p.is_file()]
    files += list((root / "data" / "tables" / "json").glob("*.json"))
    files.append(root / "data" / "tables" / "table_categories.tsv")
    return sorted(p.relative_to(root).as_posix() for p in files)


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink())


def add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def build_archive(src: Path, archive: Path, extra: list[tarfile.TarInfo | tuple[str, bytes]] = ()) -> Path:
    """A GitHub-style archive: everything under one top folder, plus files tabprobe does not keep."""
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        top = tarfile.TarInfo(TOP)
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        for rel in kept_files(src):
            tar.add(src / rel, arcname=f"{TOP}/{rel}", recursive=False)
        add_bytes(tar, f"{TOP}/README.md", b"# not kept\n")
        add_bytes(tar, f"{TOP}/data/tables/html/T0.html", b"<table>not kept</table>\n")
        for item in extra:
            if isinstance(item, tarfile.TarInfo):
                tar.addfile(item)
            else:
                add_bytes(tar, *item)
    return archive


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A static file server on 127.0.0.1 (free port) in a thread; yields (base url, folder it serves)."""
    www = tmp_path_factory.mktemp("www")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(www)))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", www
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def real_url(shared_infotabs, server) -> str:
    """The URL of an archive of the real data (built once, under the server's tmp folder)."""
    base, www = server
    build_archive(shared_infotabs, www / "real.tar.gz")
    return f"{base}/real.tar.gz"


@pytest.fixture(scope="module")
def real_download(real_url, tmp_path_factory) -> Path:
    """The real data, downloaded once for the module."""
    dest = tmp_path_factory.mktemp("real") / "infotabs"
    download.download(dest, url=real_url, timeout=10)
    return dest


# --------------------------------------------------------------------------------------------- success


def test_download_keeps_exactly_the_data_files_equal_to_the_shared_copy(real_download, shared_infotabs):
    expected = kept_files(shared_infotabs)
    assert len(expected) > 2_000  # the table JSONs are there, not just the TSVs
    assert files_under(real_download) == expected  # README, html tables and the top folder are not kept
    for rel in expected:
        assert (real_download / rel).read_bytes() == (shared_infotabs / rel).read_bytes(), rel
    assert not [p.name for p in real_download.parent.iterdir() if p != real_download]  # no temp folder left
    download.verify(real_download)


def test_verify_names_each_file_that_differs(real_download, tmp_path):
    copy = tmp_path / "infotabs"
    shutil.copytree(real_download, copy)
    dev = copy / "data" / "maindata" / "infotabs_dev.tsv"
    dev.write_bytes(dev.read_bytes() + b"GW0\tT0\tOne more hypothesis.\tE\n")
    (copy / "data" / "tables" / "table_categories.tsv").unlink()
    (copy / "data" / "tables" / "json" / "T0.json").unlink()

    with pytest.raises(DownloadError) as excinfo:
        download.verify(copy)

    message = str(excinfo.value)
    assert f"{dev}: sha256 differs" in message
    assert f"{copy / 'data/tables/table_categories.tsv'}: missing" in message
    assert f"{copy / 'data/tables/json/*.json'}: sha256 differs" in message
    assert "data/maindata/infotabs_train.tsv" not in message  # untouched files are not named
    assert "infotabs_verify: false" in message


def test_verify_of_a_folder_that_is_not_infotabs_tells_how_to_set_infotabs_dir(tmp_path):
    with pytest.raises(DownloadError, match="not an InfoTabS folder") as excinfo:
        download.verify(tmp_path)
    assert "infotabs_dir" in str(excinfo.value)


def test_download_replaces_an_existing_destination(real_url, tmp_path):
    dest = tmp_path / "infotabs"
    (dest / "data").mkdir(parents=True)
    (dest / "data" / "stale.txt").write_text("left from an older copy")

    download.download(dest, url=real_url, timeout=10)

    assert not (dest / "data" / "stale.txt").exists()
    download.verify(dest)


# -------------------------------------------------------------------------------------------- failures


def test_archive_with_other_data_is_refused_and_nothing_is_left(mini_infotabs, server, tmp_path):
    base, www = server
    build_archive(mini_infotabs, www / "mini.tar.gz")
    parent = tmp_path / "resources"
    dest = parent / "infotabs"

    with pytest.raises(DownloadError) as excinfo:
        download.download(dest, url=f"{base}/mini.tar.gz", timeout=10)

    message = str(excinfo.value)
    assert "sha256 differs" in message
    assert "infotabs_train.tsv: sha256 differs" in message
    assert download.INFOTABS_COMMIT[:12] in message
    assert not dest.exists()
    assert list(parent.iterdir()) == []  # no half-written copy, no temp folder


def test_failed_download_keeps_an_existing_destination(mini_infotabs, server, tmp_path):
    base, www = server
    build_archive(mini_infotabs, www / "mini-keep.tar.gz")
    dest = tmp_path / "infotabs"
    dest.mkdir()
    (dest / "marker.txt").write_text("keep me")

    with pytest.raises(DownloadError, match="sha256 differs"):
        download.download(dest, url=f"{base}/mini-keep.tar.gz", timeout=10)

    assert (dest / "marker.txt").read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["infotabs"]


def test_unreachable_url_fails_fast_and_says_how_to_use_a_local_copy(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/x.tar.gz"
    dest = tmp_path / "infotabs"

    start = time.monotonic()
    with pytest.raises(DownloadError) as excinfo:
        download.download(dest, url=url, timeout=4)
    elapsed = time.monotonic() - start

    assert elapsed < 5
    message = str(excinfo.value)
    assert f"cannot download InfoTabS from {url}" in message
    assert "infotabs_dir: /path/to/infotabs" in message and "--config infotabs_dir=" in message
    assert not dest.exists()
    assert list(tmp_path.iterdir()) == []


def test_http_error_is_a_download_error(server, tmp_path):
    base, _ = server
    with pytest.raises(DownloadError, match="(?i)not found") as excinfo:
        download.download(tmp_path / "infotabs", url=f"{base}/no-such-file.tar.gz", timeout=10)
    assert "infotabs_dir" in str(excinfo.value)
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_an_archive_is_a_download_error(server, tmp_path):
    base, www = server
    (www / "page.tar.gz").write_text("<html>rate limited</html>")
    with pytest.raises(DownloadError, match="not a readable tar.gz archive") as excinfo:
        download.download(tmp_path / "infotabs", url=f"{base}/page.tar.gz", timeout=10)
    assert "infotabs_dir" in str(excinfo.value)
    assert list(tmp_path.iterdir()) == []


def test_truncated_archive_is_a_download_error(mini_infotabs, server, tmp_path):
    # A connection cut mid-transfer: urllib does not notice, extraction must.
    base, www = server
    whole = build_archive(mini_infotabs, tmp_path / "whole.tar.gz").read_bytes()
    (www / "truncated.tar.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DownloadError, match="not a readable tar.gz archive.*infotabs_dir"):
        download.download(tmp_path / "out" / "infotabs", url=f"{base}/truncated.tar.gz", timeout=10)
    assert not (tmp_path / "out" / "infotabs").exists()


def test_archive_members_cannot_escape_the_destination(shared_infotabs, server, tmp_path):
    base, www = server
    # one escape per depth: from the extraction folder, 2+ levels up lands in tmp_path/a/b/c, b, a, tmp_path...
    escapes = [(f"{TOP}/" + "../" * depth + f"escaped{depth}.txt", b"escaped") for depth in range(1, 7)]
    escapes += [
        ("../escaped_top.txt", b"escaped"),
        (f"{TOP}/data/maindata/../../../../../escaped_inner.txt", b"escaped"),
        # would overwrite a checked file with garbage (so verify would fail) if '..' were followed
        (f"{TOP}/../{TOP}/data/maindata/infotabs_dev.tsv", b"garbage"),
        (f"{tmp_path}/escaped_absolute.txt", b"escaped"),
    ]
    link = tarfile.TarInfo(f"{TOP}/data/maindata/link_out")
    link.type = tarfile.SYMTYPE
    link.linkname = str(tmp_path)
    build_archive(shared_infotabs, www / "hostile.tar.gz", extra=[*escapes, link])
    with tarfile.open(www / "hostile.tar.gz") as tar:  # the archive really holds the hostile names
        names = tar.getnames()
    assert f"{TOP}/../../escaped2.txt" in names and f"{tmp_path}/escaped_absolute.txt".lstrip("/") in [
        n.lstrip("/") for n in names
    ]
    dest = tmp_path / "a" / "b" / "c" / "infotabs"

    download.download(dest, url=f"{base}/hostile.tar.gz", timeout=10)

    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("escaped*")) == []
    assert files_under(dest) == kept_files(shared_infotabs)  # no link, no stray file
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    download.verify(dest)
