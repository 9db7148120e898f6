"""Probe coverage: how many gold examples each probe perturbed, why it skipped the rest, what it
dropped for breaking its promises, and what became of the label flips a person must check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabprobe.report.blocks import Section, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.report.power import TOO_FEW, Power

POWER_NOTE = (
    '"Scored" is the number of examples its scores rest on; below "Minimum n" (config `min_examples`, a probe\'s '
    'own `min_examples` where it sets one) every row of the probe on that split says "too few examples" and no '
    "verdict, scorecard cell or summary figure rests on it."
)


def coverage_section(run: RunInfo) -> Section:
    section = Section("Probe coverage")
    caps = {c["limit"] for c in run.coverage}
    text = "How many gold examples each probe could perturb, and why the rest were skipped."
    if len(caps) == 1 and None not in caps:
        text += (
            f" Each split was capped at {next(iter(caps))} examples (a seeded random subset, the same for every probe)."
        )
    elif caps - {None}:
        text += (
            " A capped probe sees a seeded random subset of the split; a smaller cap picks a subset of a "
            "larger one, so every probe example has its original."
        )
    section.blocks.append(text)
    section.blocks.append(
        "Every perturbation is checked against the promises its probe declares (rows deleted are exactly the ones "
        "it names, the recorded edits reproduce the new hypothesis, an inserted key is new to the table, ...); one "
        'that breaks a promise is dropped before an example is sampled, counted under "Dropped" and listed in '
        'the job log (logs/generate_probe/). "Curation" counts the label flips a person must check (paper section '
        "4: CONTRADICT -> ENTAIL flips and heuristic flips) and what the curation file decided; "
        + UNVERIFIED_POLICY[run.unverified_flips]
        + " An example rejected by curation is skipped. "
        + POWER_NOTE
    )
    section.blocks.append(coverage_table(run, run.coverage, run.plan.dataset.splits))
    return section


def coverage_table(
    run: RunInfo, entries: Sequence[Mapping], split_order: Sequence[str], noun: str = "examples", curation: bool = True
) -> TableBlock:
    """One part's coverage records (one probe on one split each) as a table, in the run's probe order
    (a probe the run does not list after those, by name), then `split_order`: the gold examples
    (`noun`: what its dataset calls them) and what became of them, with the Curation column if `curation`."""
    probes = {p: i for i, p in enumerate(run.probes)}
    splits = {s: i for i, s in enumerate(split_order)}
    ordered = sorted(
        entries,
        key=lambda c: (probes.get(c["probe"], len(probes)), c["probe"], splits.get(c["split"], len(splits))),
    )
    header = [
        "Probe",
        "Split",
        "Cap",
        f"Gold {noun}",
        "Perturbed",
        *POWER_HEADER,
        "Skipped (reason: count)",
        "Dropped (broken promise: count)",
        *(["Curation"] if curation else []),
    ]
    rows = [coverage_row(c, run.power) + ([curation_counts(c.get("review"))] if curation else []) for c in ordered]
    return TableBlock(header, rows)


def coverage_row(c: Mapping, power: Power | None) -> list[str]:
    """A coverage record (one probe on one split) as cells: probe, split, cap, gold examples,
    perturbed, scored against its minimum n (`power`), skipped and dropped (reason: count)."""
    return [
        c["probe"],
        c["split"],
        "all" if c["limit"] is None else str(c["limit"]),
        str(c["gold"]),
        str(c["perturbed"]),
        *power_cells(c["probe"], c["split"], power),
        "; ".join(f"{k}: {v}" for k, v in c["skipped"].items()) or "–",
        "; ".join(f"{k}: {v}" for k, v in c.get("dropped", {}).items()) or "–",
    ]


POWER_HEADER = ["Scored (n)", "Minimum n"]


def power_cells(probe: str, split: str, power: Power | None) -> list[str]:
    """The examples a probe was scored on (its n: perturbed, less any left out of scoring, as
    unverified label flips are) and the minimum a verdict or a figure needs, saying where it falls
    short; "–" where nothing was scored."""
    if power is None:
        return ["–", "–"]
    n, minimum = power.n(probe, split), power.minimums.of(probe)
    if n is None:
        return ["–", str(minimum)]
    return [f"{n}: {TOO_FEW}, decides nothing" if n < minimum else str(n), str(minimum)]


UNVERIFIED_POLICY = {
    "exclude": "candidates nobody decided (unverified) are left out of every score, of the paper tables' pooled "
    "columns and of inoculation (unverified_flips: exclude), as the paper counted only curated flips.",
    "include": "candidates nobody decided (unverified) are counted in the scores like the rest "
    "(unverified_flips: include): their labels were set automatically and not checked by a person.",
}


def curation_counts(review: Mapping | None) -> str:
    """A coverage row's curation: candidates and what became of them."""
    if not review or not any(review.values()):
        return "–"
    parts = [f"{review['candidates']} to check"] + [
        f"{review[k]} {k}" for k in ("accepted", "relabelled", "rejected", "unverified", "stale") if review.get(k)
    ]
    return ", ".join(parts)


def curation_note(run: RunInfo, probe_names: Sequence[str]) -> str | None:
    """What became of the label flips a person must check, for the probes of a paper table."""
    reviews = [
        (c["probe"], c["split"], c["review"])
        for c in run.coverage
        if c["probe"] in probe_names and c.get("review", {}).get("candidates")
    ]
    if not reviews:
        return None
    total = {
        k: sum(r[k] for _, _, r in reviews) for k in ("candidates", "accepted", "relabelled", "rejected", "unverified")
    }
    per = "; ".join(f"`{p}` on {s}: {curation_counts(r)}" for p, s, r in reviews)
    return (
        f"Label flips that need a person (paper section 4: the paper annotated every CONTRADICT -> ENTAIL flip and "
        f"curated its half/twice heuristic by hand): {total['candidates']} in this run, "
        f"{total['accepted'] + total['relabelled']} verified ({total['accepted']} accepted, {total['relabelled']} "
        f"relabelled), {total['rejected']} rejected (dropped), {total['unverified']} not checked; "
        + UNVERIFIED_POLICY[run.unverified_flips]
        + f" Per probe: {per}. Check them with `tabprobe curate PROBE` (docs/curation.md)."
    )
