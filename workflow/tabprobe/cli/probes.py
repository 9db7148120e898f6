"""`tabprobe probes`: the registered probes, how each is judged, its family and paper section."""

from __future__ import annotations

import re

from tabprobe.cli.errors import CommandFailed
from tabprobe.cli.terminal import styled
from tabprobe.probes import REGISTRY, Probe, get_probe


def judged_by(probe: Probe) -> str:
    """How a probe is judged, in a few words."""
    if probe.judged_by == "transitions":
        return f"transitions: {probe.transition_rule.name}"
    if probe.judged_by == "evidence":
        return "evidence"
    return "expected label" + (f" ({probe.label_change})" if probe.label_change else "")


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'])", " ".join(text.split()), maxsplit=1)[0]


def cmd_probes(args, console) -> int:
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("probe", "dataset", "judged by", "family", "paper section", "what it does"):
        table.add_column(column, overflow="fold")
    broken = []
    for name in REGISTRY:
        try:
            probe = get_probe(name)
        except Exception as error:  # a probe module being written may not import yet: list the rest
            broken.append(name)
            table.add_row(name, "", "", "", "", styled(f"cannot be loaded: {type(error).__name__}: {error}", "red"))
            continue
        table.add_row(
            name,
            ", ".join(probe.datasets),
            judged_by(probe),
            probe.family or "—",
            probe.paper_reference or "—",
            first_sentence(probe.description),
        )
    console.print(table)
    console.print(
        f"{len(REGISTRY)} registered probes (workflow/tabprobe/probes/__init__.py). "
        "`tabprobe show PROBE` shows what one does; `tabprobe new-probe NAME` starts a new one."
    )
    if broken:
        raise CommandFailed(
            f"{', '.join(broken)} cannot be loaded (see the table); "
            f"`python -c \"from tabprobe.probes import get_probe; get_probe('{broken[0]}')\"` "
            "shows the traceback"
        )
    return 0
