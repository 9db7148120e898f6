"""Probes outside the paper's families: external probe sets given as folders in InfoTabS format,
and probes of a user's own judged by an expected label."""

from __future__ import annotations

from ..results import Index
from .blocks import Section
from .inputs import RunInfo
from .tables import DROP_EXPLAINED, probe_family_section


def external_section(scores: Index, run: RunInfo) -> Section | None:
    return probe_family_section(
        scores,
        run,
        "external",
        "External probe sets",
        "Probe sets given as folders in InfoTabS format (config `probes: {name: {external: folder}}`), scored "
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
