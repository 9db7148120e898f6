rule score_probe:
    input:
        unpack(get_score_inputs),
        code=code_of("score_probe"),
    output:
        "results/scores/{model}/{probe}/{split}.parquet",
    params:
        settings=SCORING,
        seed=config["seed"],
        externals=get_external_spec,
        unverified_flips=config["unverified_flips"],
    log:
        "logs/score_probe/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/score_probe/{model}/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_probe.py"


rule score_pooled_column:
    input:
        unpack(get_pooled_inputs),
        code=code_of("score_pooled_column"),
    output:
        "results/pooled/{table}/{model}/{column}/{split}.parquet",
    params:
        probes=get_pooled_members,
        settings=SCORING,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    log:
        "logs/score_pooled_column/{table}/{model}/{column}/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_pooled_column.py"
