"""Rule download_counterfactuals: fetch the paper's hand-made counterfactual release (when no local copy is named)."""

from __future__ import annotations

from .. import human_counterfactuals


def download_counterfactuals(dest: str, url: str, timeout: float) -> None:
    human_counterfactuals.download_release(dest, url=url, timeout=timeout)
