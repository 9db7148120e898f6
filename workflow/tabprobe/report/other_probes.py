"""Probes outside the paper's families: external probe sets given as folders in the paper dataset's format,
and probes of a user's own judged by an expected label."""

from __future__ import annotations

from tabprobe.report.blocks import Section
from tabprobe.report.inputs import RunInfo
from tabprobe.report.tables import DROP_EXPLAINED, probe_family_section
from tabprobe.scoring.results import Index


def external_section(scores: Index, run: RunInfo) -> Section | None:
    return probe_family_section(
        scores,
        run,
        "external",
        "External probe sets",
        f"Probe sets given as folders in {run.plan.dataset.title} format (config `probes: {{name: {{external: folder}}}}`), scored "
        "against their own labels; the paired drop covers the lines paired with a gold example of the split "
        "(see Probe coverage). " + DROP_EXPLAINED,
        "Accuracy (mean (std), n; paired drop)",
    )


def own_probes_section(scores: Index, run: RunInfo) -> Section | None:
    return probe_family_section(
        scores,
        run,
        "",
        "Other probes",
        "Probes judged by an expected label outside the paper's families (a probe of your own, "
        "say), scored against that label. " + DROP_EXPLAINED,
        "Accuracy (mean (std), n; paired drop)",
    )
