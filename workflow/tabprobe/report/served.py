"""Served models (tabprobe.models.endpoint): how each was asked and scored, what its requests
cost, and per probe the share of its answers that gave no label (unparsed: counted wrong where a
label is expected, left out of transitions, never read as N)."""

from __future__ import annotations

from collections.abc import Mapping

from tabprobe.models.endpoint.reach import OPEN
from tabprobe.report.blocks import Section, Stat, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.scoring.results import Index, showcase_order

SCORING_TEXT = {
    "generate": "the answer generated at temperature 0, its label parsed from the text",
    "first_token": "the top log-probabilities of the answer's first token, the verbalisers' first tokens renormalised",
    "prompt_logprobs": "each verbaliser's log-likelihood after the prompt, as the in-process causal LM scores it",
}


def served_description(endpoint: Mapping) -> str:
    """How a served model was prompted and scored, in one cell."""
    verbalisers = " / ".join(f"{label} {endpoint['verbalisers'][label]!r}" for label in ("E", "N", "C"))
    text = (
        f"served model {endpoint['model']!r}, {endpoint['api']} API, {endpoint['shots']}-shot"
        f"{', reason then answer' if endpoint.get('reasoning') else ''}; scoring {endpoint['scoring']}: "
        f"{SCORING_TEXT[endpoint['scoring']]}; verbalisers {verbalisers}"
    )
    priors = endpoint.get("calibrated_priors")
    if priors:
        text += "; contextual calibration (content-free priors " + ", ".join(
            f"{k} {priors[k]:.2f}" for k in ("E", "N", "C")
        )
        text += ")"
    if endpoint.get("server_access") == OPEN:
        text += (
            "; its server was open to every user of its machine (serve.open_to_local_users: true): another user "
            "could have used it"
        )
    return text


def served_section(scores: Index, run: RunInfo) -> Section | None:
    served = {name: m for name, m in run.models.items() if m.get("endpoint")}
    if not served:
        return None
    section = Section("Served models: requests and unparsed answers")
    rows = []
    for name, model in served.items():
        totals = model.get("endpoint_totals") or {}
        rows.append(
            [
                name,
                model["endpoint"]["scoring"],
                str(totals.get("requests", 0)),
                str(totals.get("cached", 0)),
                str(totals.get("retries", 0)),
                f"{totals.get('tokens_in', 0)} / {totals.get('tokens_out', 0)}",
                f"{totals.get('seconds', 0):.0f}",
                f"{totals.get('unparsed', 0)} of {totals.get('examples', 0)}",
            ]
        )
    section.blocks.append(
        "A served model's answers are cached on disk by request: a re-run asks only for what it has not "
        "asked before, and a run whose answers are all cached needs no server. An answer that gives no label "
        "(scoring generate: none found by the parser; first_token: no verbaliser among the listed tokens) is "
        "an outcome of its own: wrong wherever a label is expected, left out of the transition rules' counts, "
        "and shown here per probe."
    )
    section.blocks.append(
        TableBlock(
            [
                "Model",
                "Scoring",
                "Requests sent",
                "Answers from the cache",
                "Retries",
                "Tokens in / out",
                "Seconds (all jobs)",
                "Unparsed answers",
            ],
            rows,
            caption="This run's requests (run.json: models.<model>.endpoint_jobs has them per job)",
        )
    )
    probe_rows = []
    for probe in run.probes:
        for split in showcase_order():
            cells = [f"`{probe}`", split]
            for name in served:
                cells.append(Stat.of(scores.get(model=name, probe=probe, split=split, statistic="unparsed_pct")))
            if any(isinstance(c, Stat) and c.shown for c in cells[2:]):
                probe_rows.append(cells)
    if probe_rows:
        section.blocks.append(
            TableBlock(
                ["Probe", "Split", *(f"{name}: unparsed %" for name in served)],
                probe_rows,
                caption="Answers that gave no label, per probe (% of its examples)",
            )
        )
    return section
