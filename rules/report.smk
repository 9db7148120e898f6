rule collect_results:
    input:
        unpack(get_results_inputs),
        code=code_of("collect_results"),
    output:
        # Every score of the run, one row each (model, probe, split, statistic, label), with the
        # paper's value beside it; the csv is the same table for a spreadsheet.
        parquet="results/results.parquet",
        csv="results/results.csv",
        # The config as run, package versions, commit, checkpoint fingerprints, relevance, caps.
        run="results/run.json",
    log:
        "logs/collect_results.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/collect_results.py"


rule assemble_report:
    input:
        unpack(get_report_inputs),
        code=code_of("assemble_report"),
    output:
        html=report(
            "results/report/index.html",
            caption="../workflow/report/report.rst",
            category="Report",
            labels={"page": "index.html"},
        ),
        markdown="results/report/report.md",
        # Every figure of the page as a file of its own: <dimension>/<model>/<probe>.svg
        # (the summary's under summary/<model>/all-probes.svg, the scorecard's summary/all-models/scorecard.svg).
        figures=report(
            directory("results/report/figures"),
            patterns=["{dimension}/{model}/{probe}.svg"],
            caption="../workflow/report/figure.rst",
            category=report_category,
            labels={"model": "{model}", "probe": "{probe}"},
        ),
    params:
        splits=REPORT_SPLITS,
        probes=PROBES,
        models=MODELS,
        seed=config["seed"],
        scoring=SCORING,
        externals=EXTERNALS,
        showcase=showcase(),
        inoculation=get_inoculation_plan(),
        unverified_flips=config["unverified_flips"],
    log:
        "logs/assemble_report.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/assemble_report.py"
