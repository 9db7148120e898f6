"""The report, part by part, in the order a reader needs it: the verdicts, the scorecard and the
summary first (`summary`), the run (`run`), then one part per dimension of the paper: annotation
artifacts (`artifacts`, section 4), evidence selection (`evidence`, section 5), counterfactuals
(`counterfactuals`, section 6), inoculation (`inoculation`, section 7), then the numeric and other
probes and the coverage. Each part reads the run's results table through `results.Index`; the
sections are rendered by `render`."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabprobe.data.datasets import paper_dataset
from tabprobe.io import atomic_dir, read_json, write_text
from tabprobe.probes import register_externals
from tabprobe.report import (
    accuracy,
    artifacts,
    counterfactuals,
    coverage,
    evidence,
    inoculation,
    numeric,
    other_probes,
    own_part,
    power,
    render,
    served,
    summary,
    transitions,
    verdicts,
)
from tabprobe.report import run as run_part
from tabprobe.report.blocks import Figure, Section
from tabprobe.report.dimensions import DIMENSION_INTROS, DIMENSIONS
from tabprobe.report.inputs import RunInfo, load_examples
from tabprobe.report.plan import plan_of
from tabprobe.scoring import results
from tabprobe.scoring.results import Index


def build_sections(scores: Index, run: RunInfo) -> list[Section]:
    """Every section of the report, from its plan (report.plan): the paper dataset's parts from its
    rows (a run of that dataset alone reads exactly as before), then each other dataset's part."""
    # Power before verdicts: from here on a probe below its minimum n on a split is read as not measured,
    # and the tables that list it say "too few examples" (report.power).
    run.power = power.power_of(scores, power.Minimums.of_record(run.min_examples))
    scores = power.decided(scores, run.power)
    plan = plan_of(scores, run.probes, list(run.models), run.splits)
    sections = []
    if plan.paper:
        paper_run = run.of_part(plan.paper)
        sections = paper_sections(plan.paper.scores, paper_run)
        run.verdicts = paper_run.verdicts
    for part in plan.others:
        sections += own_part.part_sections(part, run)
    # Served models' requests and unparsed answers, of every dataset's probes, after "This run".
    requests = served.served_section(scores, run)
    if requests:
        after = next((i + 1 for i, s in enumerate(sections) if s.title == run_part.RUN_TITLE), len(sections))
        sections.insert(after, requests)
    return sections


def paper_sections(scores: Index, run: RunInfo) -> list[Section]:
    """The paper dataset's part: the verdicts, scorecard and summary, the run, then the paper's dimensions."""
    run.verdicts = verdicts.verdicts(run.plan, verdicts.facts_of(run.models, run.relevance))
    sections = [
        summary.verdict_section(run),
        summary.scorecard_section(scores, run),
        summary.summary_section(scores, run),
        run_part.run_section(run),
    ]
    sections.append(accuracy.accuracy_section(run))
    transition_probes = run.plan.judged("transitions")
    parts = {
        "artifacts": [artifacts.artifacts_section(scores, run), artifacts.premise_controls_section(scores, run)],
        "evidence": ([evidence.transition_rules_section(run, transition_probes)] if transition_probes else [])
        + [transitions.invalid_transition_section(scores, run, p) for p in transition_probes]
        + [evidence.evidence_section(scores, run)],
        "counterfactuals": [counterfactuals.counterfactual_section(scores, run)],
        "inoculation": [*inoculation.inoculation_sections(scores, run), inoculation.defense_section(scores, run)],
    }
    for dimension, subsections in parts.items():
        subsections = [s for s in subsections if s]
        if subsections:
            intro = DIMENSION_INTROS[dimension].format(paper=run.plan.dataset.title)
            sections.append(Section(DIMENSIONS[dimension], [intro]))
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


# "{paper}": the title of the paper's dataset (Dataset.title).
LEDE = (
    "Does each model reason from the evidence in its table? The verdicts come first, then the scorecard that "
    'decides them, then every probe. Systematic probes of "Is My Model Using the Right Evidence?" (Gupta et al.) on {paper}: the tables and '
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
    lede = LEDE.format(paper=paper_dataset().title)
    return Report(render.to_html(sections, TITLE, lede), render.to_markdown(sections, TITLE, lede), files)


log = logging.getLogger(__name__)


def assemble_report(
    results_path: str,
    run_path: str,
    coverage_paths: Sequence[str],
    html_out: str,
    markdown_out: str,
    figures_out: str,
    splits: Sequence[str],
    probes: Sequence[str],
    data_source: str,
    seed: int,
    scoring_settings: Mapping[str, Any],
    relevance_summaries: Mapping[str, str] | None = None,
    externals: Mapping[str, str | None] | None = None,
    models: Sequence[str] = (),
    showcase: Mapping[str, Mapping] | None = None,
    inoculation_summaries: Mapping[str, str] | None = None,
    inoculation_plan: Mapping[str, Any] | None = None,
    variance_summaries: Mapping[str, str] | None = None,
    unverified_flips: str = "exclude",
) -> None:
    """Rule assemble_report: the HTML and Markdown report and its figures. `results_path` and `run_path`:
    collect_results's table and run record; the summaries, each {name: path}: find_relevant_rows's per
    split, score_inoculation's per experiment, collect_variance's per model; `showcase` maps a probe to
    the split and files its failing examples are drawn from (layout.showcase_inputs)."""
    register_externals(externals)
    record = read_json(run_path)
    recorded = record["models"]
    # The config's order (the order the user listed their models in), then any the config no longer names.
    models_info = {m: recorded[m] for m in models if m in recorded} | recorded
    run = RunInfo(
        splits=list(splits),
        probes=list(probes),
        models=models_info,
        data_source=data_source,
        seed=seed,
        scoring=dict(scoring_settings),
        coverage=[read_json(p) for p in coverage_paths],
        relevance={split: read_json(p) for split, p in (relevance_summaries or {}).items()},
        unverified_flips=unverified_flips,
        min_examples=record.get("min_examples") or {},  # a run.json of before the minimum: the schema's default
    )
    # Their scores are in the results table; the summaries hold what the grid chose and the spread.
    run.inoculation = {experiment: read_json(p) for experiment, p in (inoculation_summaries or {}).items()}
    run.inoculation_plan = dict(inoculation_plan) if inoculation_plan else None
    run.variance = {model: read_json(p) for model, p in (variance_summaries or {}).items()}
    run.examples = load_examples(showcase or {}, list(models_info), seed, unverified_flips=unverified_flips)
    log.info("failing examples drawn for %d probes x models", len(run.examples))
    built = assemble(results.Index(results.read(results_path)), run)
    with atomic_dir(figures_out) as folder:
        for path, svg in sorted(built.figures.items()):
            (Path(folder) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / path).write_text(svg, encoding="utf-8")
    write_text(built.html, html_out)
    write_text(built.markdown, markdown_out)
    log.info(
        "report: %s (%d kB), %s, %d figures in %s",
        html_out,
        len(built.html) // 1024,
        markdown_out,
        len(built.figures),
        figures_out,
    )
