rule assemble_report:
    input:
        unpack(get_report_inputs),
        code=library_files("report", "paper"),
    output:
        html=report(
            "results/report/index.html",
            caption="../workflow/report/report.rst",
            category="tabprobe",
        ),
        markdown="results/report/report.md",
    params:
        splits=REPORT_SPLITS,
        probes=PROBES,
        models=MODELS,
        data_source=infotabs_root(),
        seed=config["seed"],
        scoring=SCORING,
        externals=EXTERNALS,
    log:
        "logs/assemble_report.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/assemble_report.py"
