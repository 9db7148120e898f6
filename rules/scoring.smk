rule score_probe:
    input:
        unpack(get_score_inputs),
        code=library_files("scoring", "transitions"),
    output:
        "results/scores/{model}/{probe}/{split}.parquet",
    params:
        settings=SCORING,
        seed=config["seed"],
    log:
        "logs/score_probe/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/score_probe/{model}/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_probe.py"
