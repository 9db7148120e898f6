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


rule score_table4_column:
    input:
        unpack(get_table4_inputs),
        code=library_files("scoring"),
    output:
        "results/table4/{model}/{column}/{split}.parquet",
    params:
        probes=get_table4_members,
        settings=SCORING,
        seed=config["seed"],
    log:
        "logs/score_table4_column/{model}/{column}/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_table4_column.py"
