"""Rule assemble_report: the HTML and Markdown report and its figures."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import report, results
from ..io import atomic_dir, read_json, write_text
from ..probes import register_externals

log = logging.getLogger(__name__)


def assemble_report(results_path: str, run_path: str, coverage_paths: Sequence[str],
                    html_out: str, markdown_out: str, figures_out: str, splits: Sequence[str], probes: Sequence[str],
                    data_source: str, seed: int, scoring_settings: Mapping[str, Any],
                    relevance_summaries: Sequence[str] = (), externals: Mapping[str, str | None] | None = None,
                    models: Sequence[str] = (), showcase: Mapping[str, Mapping] | None = None,
                    inoculation_summaries: Sequence[str] = (), inoculation_plan: Mapping[str, Any] | None = None,
                    variance_summaries: Sequence[str] = (), unverified_flips: str = "exclude") -> None:
    """`results_path` and `run_path`: collect_results's table and run record; `relevance_summaries`
    find_relevant_rows's (results/relevance/{split}.json); `showcase` maps a probe to the split
    and files its failing examples are drawn from (report_layout.showcase_inputs)."""
    register_externals(externals)
    recorded = read_json(run_path)["models"]
    # The config's order (the order the user listed their models in), then any the config no longer names.
    models_info = {m: recorded[m] for m in models if m in recorded} | recorded
    run = report.RunInfo(
        splits=list(splits), probes=list(probes), models=models_info, data_source=data_source, seed=seed,
        scoring=dict(scoring_settings), coverage=[read_json(p) for p in coverage_paths],
        relevance={Path(p).stem: read_json(p) for p in relevance_summaries},
        unverified_flips=unverified_flips,
    )
    # Inoculation: results/inoculation/<model>/<experiment>.json; controlled variance:
    # results/variance/<model>.json (their scores are in the results table).
    run.inoculation = {Path(p).stem: read_json(p) for p in inoculation_summaries}
    run.inoculation_plan = dict(inoculation_plan) if inoculation_plan else None
    run.variance = {Path(p).stem: read_json(p) for p in variance_summaries}
    run.examples = report.load_examples(showcase or {}, list(models_info), seed,
                                        unverified_flips=unverified_flips)
    log.info("failing examples drawn for %d probes x models", len(run.examples))
    built = report.assemble(results.read(results_path), run)
    with atomic_dir(figures_out) as folder:
        for path, svg in sorted(built.figures.items()):
            (Path(folder) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / path).write_text(svg, encoding="utf-8")
    write_text(built.html, html_out)
    write_text(built.markdown, markdown_out)
    log.info("report: %s (%d kB), %s, %d figures in %s", html_out, len(built.html) // 1024, markdown_out,
             len(built.figures), figures_out)
