"""Rule download_infotabs: fetch the official InfoTabS release (when no local copy is named)."""

from __future__ import annotations

from .. import download


def download_infotabs(dest: str, url: str, timeout: float) -> None:
    download.download(dest, url=url, timeout=timeout)
