"""Every rule's job by the rule's name, for code that runs one job outside Snakemake (the tests):
`stages.score_probe(...)` is tabprobe.jobs.score_probe.score_probe, imported when first used."""

from __future__ import annotations

import importlib


def __getattr__(name: str):
    try:
        module = importlib.import_module(f"{__package__}.jobs.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"{__package__}.jobs.{name}":
            raise AttributeError(f"no rule's job is named {name!r} (tabprobe/jobs/)") from None
        raise
    return getattr(module, name)
