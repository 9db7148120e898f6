"""The report, part by part, in the order a reader needs it: the verdicts, the scorecard and the
summary first (`summary`), the run (`run`), then one part per dimension of the paper: annotation
artifacts (`artifacts`, section 4), evidence selection (`evidence`, section 5), counterfactuals
(`counterfactuals`, section 6), inoculation (`inoculation`, section 7), then the numeric and other
probes and the coverage. Each part reads the run's results table through `results.Index`; the
sections are rendered by `render`."""

from __future__ import annotations

from dataclasses import dataclass

from .. import verdicts
from ..probes import get_probe
from ..results import Index
from . import artifacts, counterfactuals, coverage, evidence, inoculation, numeric, other_probes, render, summary
from . import run as run_part
from .blocks import Figure, Section
from .dimensions import DIMENSION_INTROS, DIMENSIONS
from .inputs import RunInfo


def build_sections(scores: Index, run: RunInfo) -> list[Section]:
    run.verdicts = verdicts.verdicts(scores, verdicts.facts_of(run.models, run.relevance))
    sections = [
        summary.verdict_section(run),
        summary.scorecard_section(scores, run),
        summary.summary_section(scores, run),
        run_part.run_section(run),
    ]
    if "original" in run.probes:
        sections.append(run_part.accuracy_section(scores, run))
    transition_probes = [p for p in run.probes if get_probe(p).judged_by == "transitions"]
    parts = {
        "artifacts": [artifacts.artifacts_section(scores, run), artifacts.premise_controls_section(scores, run)],
        "evidence": ([evidence.transition_rules_section(transition_probes)] if transition_probes else [])
        + [evidence.invalid_transition_section(scores, run, p) for p in transition_probes]
        + [evidence.evidence_section(scores, run)],
        "counterfactuals": [counterfactuals.counterfactual_section(scores, run)],
        "inoculation": [*inoculation.inoculation_sections(scores, run), inoculation.defense_section(scores, run)],
    }
    for dimension, subsections in parts.items():
        subsections = [s for s in subsections if s]
        if subsections:
            sections.append(Section(DIMENSIONS[dimension], [DIMENSION_INTROS[dimension]]))
            for subsection in subsections:
                subsection.level = 3
                sections.append(subsection)
    numeric_probes, variance = numeric.numeric_section(scores, run), numeric.variance_section(scores, run)
    others = [other_probes.external_section(scores, run), other_probes.own_probes_section(scores, run)]
    if numeric_probes and variance:
        variance.level = 3  # under the numeric probes whose generator it trains on
        sections += [numeric_probes, variance, *others]
    else:
        sections += [numeric_probes, *others, variance]
    sections = [s for s in sections if s]
    sections.append(coverage.coverage_section(run))
    return sections


TITLE = "tabprobe report: is the model using the evidence in its tables?"


LEDE = (
    "Does each model reason from the evidence in its table? The verdicts come first, then the scorecard that "
    'decides them, then every probe. Systematic probes of "Is My Model Using the Right Evidence?" (Gupta et al.) on InfoTabS: the tables and '
    "hypotheses are perturbed in controlled ways and the model's predictions compared with what evidence-based "
    "reasoning allows. Every number carries its n and its interval; the paper's RoBERTa-large numbers stand "
    "beside this run's."
)


@dataclass
class Report:
    html: str
    markdown: str
    figures: dict[str, str]  # results/report/figures/<path> -> SVG text


def assemble(scores: Index, run: RunInfo) -> Report:
    """The report from the run's results table and what else it knows of the run."""
    sections = build_sections(scores, run)
    files = {
        block.path: block.svg
        for section in sections
        for block in section.blocks
        if isinstance(block, Figure) and block.path
    }
    return Report(render.to_html(sections, TITLE, LEDE), render.to_markdown(sections, TITLE, LEDE), files)
