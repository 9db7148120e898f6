rule generate_probe:
    input:
        examples="results/data/{split}.parquet",
        tables="results/data/{split}.tables.parquet",
        probe_module=get_probe_module,
        code=library_files("perturb", "probes/base", "probes/table_edits"),
    output:
        probe="results/probes/{probe}/{split}.parquet",
        coverage="results/probes/{probe}/{split}.coverage.json",
    params:
        options=get_probe_options,
        seed=config["seed"],
        limit=MAX_EXAMPLES,
    log:
        "logs/generate_probe/{probe}/{split}.log",
    benchmark:
        "benchmarks/generate_probe/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/generate_probe.py"
