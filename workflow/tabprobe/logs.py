"""Logging for a rule's job: everything goes to its log file; errors, and warnings logged with
`extra=TERMINAL`, also reach the terminal."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path

from tabprobe import __version__
from tabprobe.errors import TabprobeError

# `log.warning(..., extra=TERMINAL)`: a warning the person running the workflow must see, not only
# the job's log (e.g. duplicate hypotheses kept in a split).
TERMINAL = {"terminal": True}


def to_file(path: str) -> None:
    terminal = sys.stderr
    handle = open(path, "w", buffering=1, encoding="utf-8")
    sys.stderr = handle  # library warnings and progress bars land in the rule's log
    shown = logging.StreamHandler(terminal)
    shown.addFilter(lambda record: getattr(record, "terminal", False))
    shown.setFormatter(logging.Formatter(f"tabprobe %(levelname)s (full log: {path}): %(message)s"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[logging.StreamHandler(handle), shown],
        force=True,
    )
    logging.captureWarnings(True)
    # Which copy of the library this job runs: the workflow's own (rules/common.smk), never an
    # installed one that happens to come first on sys.path.
    logging.getLogger("tabprobe").info("tabprobe %s from %s", __version__, Path(__file__).resolve().parent)

    def report_error(kind, error, tb):
        # The full traceback goes to the log; the person at the terminal gets the message,
        # which for tabprobe's own errors says what was wrong, where, and how to fix it.
        traceback.print_exception(kind, error, tb, file=handle)
        handle.flush()
        shown = str(error) if isinstance(error, TabprobeError) else f"{kind.__name__}: {error}"
        print(f"\ntabprobe error (full log: {path}):\n{shown}\n", file=terminal, flush=True)

    sys.excepthook = report_error
