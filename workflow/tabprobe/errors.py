"""Errors meant for people: what was wrong, where, and how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice closest to a mistyped name, or None when none is close."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return close[0] if close else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """ " Did you mean 'x'?" for the closest choice, or "" when none is close."""
    match = closest(name, choices)
    return f" Did you mean {match!r}?" if match else ""


class TabprobeError(Exception):
    """Base class of every error tabprobe raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, located as precisely as we can."""

    path: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.reason}"


class InputDataError(TabprobeError):
    """Bad input data. Lists every problem found (up to a limit) so one edit fixes them all."""

    def __init__(self, problems: list[Problem], fix: str, more: int = 0):
        self.problems = problems
        self.fix = fix
        lines = [str(p) for p in problems]
        if more:
            lines.append(f"... and {more} more problems of the same kinds")
        super().__init__("\n".join(lines) + f"\nHow to fix: {fix}")


class CorruptFileError(TabprobeError):
    """A file from an earlier stage is unreadable or has the wrong schema."""


class SetupError(TabprobeError):
    """Something the workflow needs is not installed or not usable (e.g. the spaCy model)."""


class ModelError(TabprobeError):
    """A checkpoint that cannot be used as configured."""


class DownloadError(TabprobeError):
    """The dataset could not be fetched or did not match its checksums."""
