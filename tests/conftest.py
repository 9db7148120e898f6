"""Shared pytest fixtures. Keep this small and generic; test-specific helpers live in the test files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# On the project machines the official data sits beside the repository (read only, never copied into it).
SHARED_INFOTABS = Path(__file__).resolve().parents[2] / "shared" / "infotabs"


@pytest.fixture
def mini_infotabs() -> Path:
    """The hand-written, clean InfoTabS-format fixture (read only: copy it with `bad_copy` to change it)."""
    return FIXTURES / "mini_infotabs"


@pytest.fixture
def bad_copy(tmp_path, mini_infotabs):
    """A function that copies the mini fixture under tmp_path and returns the copy, for a test to corrupt."""

    def make(name: str = "infotabs") -> Path:
        dest = tmp_path / name
        shutil.copytree(mini_infotabs, dest)
        return dest

    return make


@pytest.fixture(scope="session")
def shared_infotabs() -> Path:
    """The real InfoTabS copy at ../shared/infotabs; tests that need it skip where it is absent."""
    if not (SHARED_INFOTABS / "data" / "maindata").is_dir():
        pytest.skip(f"real InfoTabS data not found at {SHARED_INFOTABS} (expected data/maindata/ there)")
    return SHARED_INFOTABS
