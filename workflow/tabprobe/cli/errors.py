"""The command's two errors: main() prints either as one line, without a traceback."""

from __future__ import annotations

from tabprobe.errors import TabprobeError


class UsageError(TabprobeError):
    """The command was given something it cannot use (exit code 2)."""


class CommandFailed(TabprobeError):
    """The command could not do its work (exit code 1)."""
