"""A served model's request budget (`max_requests`): the requests one run of the workflow may send
to its server, its retries included, counted across all of the model's jobs of the run.

The count is a tally file beside the response cache (private, as the cache is), one per run and
model, updated under an exclusive lock, so jobs side by side (or on a cluster's nodes sharing the
folder) count together. The run is the workflow's invocation: the main Snakemake process sets
RUN_VARIABLE (rules/common.smk), which its jobs inherit; a job started by hand has none and
counts its own requests alone.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from pathlib import Path

from tabprobe.models.endpoint.cache import private_folder
from tabprobe.models.endpoint.settings import EndpointError

RUN_VARIABLE = "TABPROBE_RUN_ID"


def new_run_id() -> str:
    return uuid.uuid4().hex[:16]


class Budget:
    """The requests a model may send in one run: a tally file (per run id and model) shared by the
    model's jobs, or a count of this process's own when the run has no id (or no limit)."""

    def __init__(self, limit: int | None, cache_folder: str | Path, model: str, run: str | None = None):
        self.limit = limit
        self.run = run if run is not None else os.environ.get(RUN_VARIABLE)
        self.path = None
        if limit is not None and self.run:
            folder = private_folder(Path(cache_folder) / "budgets", "request budget tally")
            self.path = folder / f"{self.run}-{model}.count"
        self.own = 0

    def take(self, n: int, check: bool = True) -> None:
        """Count `n` more requests; with `check`, refuse (EndpointError) those past the limit."""
        if self.path is None:
            if check and self.limit is not None and self.own + n > self.limit:
                raise EndpointError(self._spent(self.own))
            self.own += n
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            text = os.pread(fd, 64, 0).decode() or "0"
            used = int(text)
            if check and used + n > self.limit:
                raise EndpointError(self._spent(used))
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(used + n).encode(), 0)
            self.own += n
        finally:
            os.close(fd)

    def _spent(self, used: int) -> str:
        return (
            f"the request budget is spent: {used} of max_requests={self.limit} requests sent in this run; the "
            "answers received are cached, so raise endpoint.max_requests (or run again: a new run has a new "
            "budget) to go on from them"
        )
