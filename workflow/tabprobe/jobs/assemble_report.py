"""Rule assemble_report: the HTML and Markdown report and its figures."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import results
from ..io import atomic_dir, read_json, write_text
from ..probes import register_externals
from ..report.assemble import assemble
from ..report.inputs import RunInfo, load_examples

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
    """`results_path` and `run_path`: collect_results's table and run record; the summaries, each
    {name: path}: find_relevant_rows's per split, score_inoculation's per experiment,
    collect_variance's per model; `showcase` maps a probe to the split and files its failing
    examples are drawn from (layout.showcase_inputs)."""
    register_externals(externals)
    recorded = read_json(run_path)["models"]
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
