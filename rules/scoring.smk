rule score_probe:
    input:
        unpack(get_score_inputs),
        code=code_of("score_probe"),
    output:
        layout.scores("{model}", "{probe}", "{split}"),
    log:
        "logs/score_probe/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/score_probe/{model}/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    params:
        settings=SCORING,
        seed=config["seed"],
        externals=get_external_spec,
        unverified_flips=config["unverified_flips"],
        served=is_served,
    script:
        "../workflow/scripts/score_probe.py"


rule score_pooled_column:
    input:
        unpack(get_pooled_inputs),
        code=code_of("score_pooled_column"),
    output:
        layout.pooled_scores("{paper_table}", "{model}", "{column}", "{split}"),
    log:
        "logs/score_pooled_column/{paper_table}/{model}/{column}/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        probes=get_pooled_members,
        settings=SCORING,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    script:
        "../workflow/scripts/score_pooled_column.py"
