rule collect_results:
    input:
        unpack(get_results_inputs),
        code=code_of("collect_results"),
    output:
        # Every score of the run, one row each (model, probe, split, statistic, label), with the
        # paper's value beside it; the csv is the same table for a spreadsheet.
        parquet=layout.results_table(),
        csv=layout.results_csv(),
        # The config as run, package versions, commit, checkpoint fingerprints, relevance, caps.
        run=layout.run_record(),
    log:
        "logs/collect_results.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        stats=inference_stats(),
        relevance=relevance_summaries(),
        # Recorded in run.json, where the report reads it: a changed minimum re-writes both.
        min_examples=MIN_EXAMPLES,
    script:
        "../workflow/scripts/collect_results.py"


rule assemble_report:
    input:
        unpack(get_report_inputs),
        code=code_of("assemble_report"),
    output:
        html=report(
            layout.report_html(),
            caption="../workflow/report/report.rst",
            category="Report",
            labels={"page": "index.html"},
        ),
        markdown=layout.report_markdown(),
        # Every figure of the page as a file of its own: <dimension>/<model>/<probe>.svg
        # (the summary's under summary/<model>/all-probes.svg, the scorecard's summary/all-models/scorecard.svg).
        figures=report(
            directory(layout.report_figures()),
            patterns=["{dimension}/{model}/{probe}.svg"],
            caption="../workflow/report/figure.rst",
            category=report_category,
            labels={"model": "{model}", "probe": "{probe}"},
        ),
    log:
        "logs/assemble_report.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        splits=REPORT_SPLITS,
        probes=PROBES,
        models=MODELS,
        seed=config["seed"],
        scoring=SCORING,
        externals=EXTERNALS,
        showcase=showcase(),
        inoculation=get_inoculation_plan(),
        inoculation_summaries=inoculation_summaries(),
        variance_summaries=variance_summaries(),
        relevance_summaries=relevance_summaries(),
        unverified_flips=config["unverified_flips"],
    script:
        "../workflow/scripts/assemble_report.py"
