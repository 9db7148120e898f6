# Paper section 7: inoculation by fine-tuning. Every (experiment, size, learning rate) is its own
# GPU job, so a cluster runs the grid in parallel; the best learning rate per size is kept (or,
# under `learning_rate_selection: shared`, the paper's one rate for every size and experiment),
# its model is probed like the others (infer_nli), and the changes are scored (Tables 9-12, with
# their train rows). A Defense (numerical-qa-robustness) runs through the same rules as the
# experiment defense-<numeric probe>. Then the
# controlled-variance experiment (diversify-your-datasets section 3). Their input functions are in
# inoculation_inputs.smk.


rule inoculate:
    input:
        unpack(get_inoculation_inputs),
        code=code_of("inoculate"),
    output:
        directory(layout.inoculated_checkpoint("{model}", "{experiment}", "{size}", "{lr}")),
    log:
        "logs/inoculate/{model}/{experiment}/{size}/lr{lr}.log",
    benchmark:
        "benchmarks/inoculate/{model}/{experiment}/{size}/lr{lr}.tsv"
    wildcard_constraints:
        lr=r"[0-9][0-9.e+-]*",
    # Started as soon as their base model is trained (after train_model's 10): each heads a chain
    # (inference on the new model, its scores, the report) that otherwise began last and ran
    # alone on a core (default run of 2026-11-26: inoculation started at 15 of 18 minutes).
    priority: 5
    conda:
        "../envs/tabprobe.yaml"
    # One thread: these fine-tunings of a few hundred examples kept one core busy with two threads
    # (default run of 2026-11-26: 4 inoculate jobs, 236 s wall, 234 s CPU; train_variance 292 s
    # wall, 298 s CPU), so a second thread only kept the other core from the jobs waiting for it.
    threads: 1
    resources:
        gpu=1,
    params:
        challenge=get_challenge_train_members,
        table=get_inoculation_table,
        sizes=get_inoculation_sizes,
        settings=get_inoculation_settings,
        model=get_base_model_settings,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    script:
        "../workflow/scripts/inoculate.py"


rule select_inoculation:
    input:
        get_inoculation_grid_dirs,
        code=code_of("select_inoculation"),
    output:
        directory(layout.inoculated_checkpoint("{model}", "{experiment}", "{size}")),
    log:
        "logs/select_inoculation/{model}/{experiment}/{size}.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        grid=get_inoculation_grid,
        shared=get_inoculation_shared_grid,
    script:
        "../workflow/scripts/select_inoculation.py"


rule score_inoculation:
    input:
        unpack(get_inoculation_score_inputs),
        code=code_of("score_inoculation"),
    output:
        scores=layout.inoculation_scores("{model}", "{experiment}"),
        summary=layout.inoculation_summary("{model}", "{experiment}"),
    log:
        "logs/score_inoculation/{model}/{experiment}.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        table=get_inoculation_table,
        models=get_inoculated_models,
        originals=get_inoculation_originals,
        members=get_challenge_members_by_split,
        challenge_originals=get_challenge_originals,
        baselines=get_inoculation_baselines,
        predictions=get_inoculation_predictions,
        grids=get_inoculation_best,
        settings=SCORING,
        seed=config["seed"],
        unverified_flips=config["unverified_flips"],
    script:
        "../workflow/scripts/score_inoculation.py"


# Controlled variance (diversify-your-datasets section 3): fine-tune on num_comparative examples
# with numbers in one range, test on several ranges, along a learning curve. Each (training size,
# repeat) is its own GPU job, trained and then scored (size 0: the model before), so a cluster
# runs the curve in parallel and adding a size, a repeat or a test range runs only the jobs it
# changes; collect_variance gathers them.


rule train_variance:
    input:
        unpack(get_variance_inputs),
        probe_sources=VARIANCE_PROBE_SOURCES,
        code=code_of("train_variance"),
    output:
        directory(layout.variance_checkpoint("{model}", "{size}", "{resample}")),
    log:
        "logs/train_variance/{model}/{size}/r{resample}.log",
    benchmark:
        "benchmarks/train_variance/{model}/{size}/r{resample}.tsv"
    wildcard_constraints:
        resample=r"\d+",
        size=r"[1-9]\d*",
    # Started as soon as their base model is trained (after train_model's 10): each heads a chain
    # (inference on the new model, its scores, the report) that otherwise began last and ran
    # alone on a core (default run of 2026-11-26: inoculation started at 15 of 18 minutes).
    priority: 5
    conda:
        "../envs/tabprobe.yaml"
    # One thread: these fine-tunings of a few hundred examples kept one core busy with two threads
    # (default run of 2026-11-26: 4 inoculate jobs, 236 s wall, 234 s CPU; train_variance 292 s
    # wall, 298 s CPU), so a second thread only kept the other core from the jobs waiting for it.
    threads: 1
    resources:
        gpu=1,
    params:
        settings=get_variance_train_settings,
        model=get_base_model_settings,
        seed=config["seed"],
    script:
        "../workflow/scripts/train_variance.py"


rule score_variance:
    input:
        # The model it tests (size 0: the one before fine-tuning), the test split's examples and tables.
        unpack(get_variance_test_inputs),
        probe_sources=VARIANCE_PROBE_SOURCES,
        code=code_of("score_variance"),
    output:
        layout.variance_job_scores("{model}", "{size}", "{resample}"),
    log:
        "logs/score_variance/{model}/{size}/r{resample}.log",
    benchmark:
        "benchmarks/score_variance/{model}/{size}/r{resample}.tsv"
    wildcard_constraints:
        resample=r"\d+",
    conda:
        "../envs/tabprobe.yaml"
    # One thread, as for train_variance (it loads a model and scores a few hundred examples).
    threads: 1
    resources:
        gpu=1,
    params:
        settings=get_variance_test_settings,
        model=get_base_model_settings,
        scoring=SCORING,
        seed=config["seed"],
    script:
        "../workflow/scripts/score_variance.py"


rule collect_variance:
    input:
        get_variance_job_scores_list,
        code=code_of("collect_variance"),
    output:
        scores=layout.variance_scores("{model}"),
        summary=layout.variance_summary("{model}"),
    log:
        "logs/collect_variance/{model}.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        scores=get_variance_job_scores,
        settings=get_variance_plan_settings,
    script:
        "../workflow/scripts/collect_variance.py"
