# Paper section 7: inoculation by fine-tuning. Every (experiment, size, learning rate) is its own
# GPU job, so a cluster runs the grid in parallel; the best learning rate per size is kept, its
# model is probed like the others (infer_nli), and the changes are scored (Tables 9-12).


rule inoculate:
    input:
        unpack(get_inoculation_inputs),
        code=code_of("inoculate"),
    output:
        directory("resources/inoculated/{model}/{experiment}/{size}/lr{lr}"),
    wildcard_constraints:
        experiment="hypothesis|counterfactual",
        size=r"\d+",
        lr=r"[0-9][0-9.e+-]*",
    params:
        challenge=get_challenge_members("train"),
        table=get_inoculation_table,
        sizes=get_inoculation_sizes,
        settings=get_inoculation_settings,
        model=get_inoculation_model,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    # torch's intra-op threads, as for train_model.
    threads: 2
    resources:
        gpu=1,
    log:
        "logs/inoculate/{model}/{experiment}/{size}/lr{lr}.log",
    benchmark:
        "benchmarks/inoculate/{model}/{experiment}/{size}/lr{lr}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/inoculate.py"


rule select_inoculation:
    input:
        get_inoculation_grid_dirs,
        code=code_of("select_inoculation"),
    output:
        directory("resources/inoculated/{model}/{experiment}/{size}/best"),
    wildcard_constraints:
        experiment="hypothesis|counterfactual",
        size=r"\d+",
    params:
        grid=get_inoculation_grid,
    log:
        "logs/select_inoculation/{model}/{experiment}/{size}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/select_inoculation.py"


rule score_inoculation:
    input:
        unpack(get_inoculation_score_inputs),
        code=code_of("score_inoculation"),
    output:
        scores="results/inoculation/{model}/{experiment}.parquet",
        summary="results/inoculation/{model}/{experiment}.json",
    wildcard_constraints:
        experiment="hypothesis|counterfactual",
    params:
        table=get_inoculation_table,
        models=get_inoculated_models,
        originals=get_inoculation_originals,
        members=get_challenge_members("alpha1"),
        predictions=get_inoculation_predictions,
        grids=get_inoculation_best,
        settings=SCORING,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    log:
        "logs/score_inoculation/{model}/{experiment}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_inoculation.py"


# Controlled variance (diversify-your-datasets section 3): fine-tune on num_comparative examples
# with numbers in one range, test on several ranges; each repeat is its own GPU job.


rule train_variance:
    input:
        unpack(get_variance_inputs),
        code=code_of("train_variance"),
    output:
        directory("resources/variance/{model}/r{resample}"),
    wildcard_constraints:
        resample=r"\d+",
    params:
        settings=get_variance_settings,
        model=get_inoculation_model,
        seed=config["seed"],
    threads: 2
    resources:
        gpu=1,
    log:
        "logs/train_variance/{model}/r{resample}.log",
    benchmark:
        "benchmarks/train_variance/{model}/r{resample}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/train_variance.py"


rule score_variance:
    input:
        checkpoint=get_variance_base,
        repeats=get_variance_repeat_dirs,
        test="results/data/alpha1.parquet",
        test_tables="results/data/alpha1.tables.parquet",
        code=code_of("score_variance"),
    output:
        scores="results/variance/{model}.parquet",
        summary="results/variance/{model}.json",
    params:
        checkpoints=get_variance_repeats,
        settings=get_variance_settings,
        model=get_inoculation_model,
        scoring=SCORING,
        seed=config["seed"],
    threads: 2
    resources:
        gpu=1,
    log:
        "logs/score_variance/{model}.log",
    benchmark:
        "benchmarks/score_variance/{model}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/score_variance.py"
