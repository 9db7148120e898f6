"""Fixtures of the probes' own test files, one file a probe: tests/probes/test_probe_<name>.py
(`tabprobe new-probe` writes a new probe's there). tests/conftest.py's fixtures hold here too.

Under pytest's default import mode the folders of tests/conftest.py and of each test file are on
sys.path, so a probe's file imports the splits it shares with the tests of several probes at once
from their files in tests/ (`from test_numeric_probes import TABLES`) and what several probes'
files share from probe_helpers.py here."""

import pytest

pytest.register_assert_rewrite("probe_helpers")
