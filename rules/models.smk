rule train_model:
    input:
        unpack(get_training_data),
        code=code_of("train_model"),
    output:
        directory(layout.trained_model("{model}")),
    log:
        "logs/train_model/{model}.log",
    benchmark:
        "benchmarks/train_model/{model}.tsv"
    wildcard_constraints:
        model=_one_of(TRAINED_MODELS),
    # The longest jobs, on the critical path: started before any job that can wait (in the
    # default run of issue 21 minilm-hypo's training was otherwise scheduled last, at 32 minutes).
    priority: get_train_priority
    conda:
        "../envs/tabprobe.yaml"
    # torch's intra-op threads; Snakemake lowers this to --cores on a small machine. Every
    # training takes the same: a one-thread hypothesis-only training started beside probe jobs
    # and held back the premise model's, which waits for two free cores (2026-11-26: 127 s).
    threads: 4
    resources:
        gpu=1,
    params:
        train=get_train_settings,
        premise=get_model_premise,
        pair_order=get_pair_order,
        seed=config["seed"],
    script:
        "../workflow/scripts/train_model.py"


rule init_model:
    input:
        code=code_of("init_model"),
    output:
        directory(layout.trained_model("{model}")),
    log:
        "logs/init_model/{model}.log",
    wildcard_constraints:
        model=_one_of(INITIALISED_MODELS),
    conda:
        "../envs/tabprobe.yaml"
    params:
        init=get_model_init,
    script:
        "../workflow/scripts/init_model.py"


rule select_shots:
    input:
        unpack(get_shot_pool),
        code=code_of("select_shots"),
    output:
        layout.shots("{model}"),
    log:
        "logs/select_shots/{model}.log",
    wildcard_constraints:
        model=_one_of(PROMPTED_MODELS),
    conda:
        "../envs/tabprobe.yaml"
    params:
        shots=get_shot_count,
        seed=config["seed"],
    script:
        "../workflow/scripts/select_shots.py"


rule infer_nli:
    input:
        probe=layout.probe_examples("{probe}", "{split}"),
        checkpoint=get_checkpoint,
        checkpoint_files=get_checkpoint_files,
        shots=get_shots,
        code=code_of("infer_nli"),
    output:
        predictions=layout.predictions("{model}", "{probe}", "{split}"),
        stats=layout.inference_stats("{model}", "{probe}", "{split}"),
    log:
        "logs/infer_nli/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/infer_nli/{model}/{probe}/{split}.tsv"
    # A served model's predictions are query_endpoint's.
    wildcard_constraints:
        model=_none_of(ENDPOINT_MODELS),
    # No retries: a server killed mid-job is replaced by the job itself, which resumes from its
    # saved blocks (tabprobe.models.serving.ask); a retry would only repeat an error that cannot go away.
    conda:
        "../envs/tabprobe.yaml"
    # One torch thread per job: a run has dozens of short inference jobs, and two one-thread
    # jobs side by side process as many examples as one two-thread job (measured on 2 cores:
    # 600 examples in 12.7 s with 2 threads, 2 x 600 in 25 s as two 1-thread jobs). The jobs of
    # one model share one loaded copy (tabprobe.models.serving): each computes on its own thread of
    # the model's server, which the first of them starts and which logs to `server_log`.
    threads: 1
    # One GPU on a cluster node; locally, a resource not given with --resources is not
    # limited, so the job also runs on a CPU-only workstation (it uses CUDA when present).
    # inference_slot: the Slurm profile allows one per submission, so one model's grouped jobs
    # run in series whatever the GPU setting (with `gpu: 0` nothing else would keep them so).
    resources:
        gpu=1,
        inference_slot=1,
    params:
        settings=get_inference_settings,
        server_log="logs/model_server/{model}.log",
    script:
        "../workflow/scripts/infer_nli.py"


rule unpack_gguf:
    input:
        gguf=get_unpack_source,
        code=code_of("unpack_gguf"),
    output:
        directory(layout.unpacked_checkpoint("{model}")),
    log:
        "logs/unpack_gguf/{model}.log",
    wildcard_constraints:
        model=_one_of(UNPACKED_MODELS),
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/unpack_gguf.py"


rule query_endpoint:
    input:
        probe=layout.probe_examples("{probe}", "{split}"),
        shots=get_shots,
        # The folder its serve command serves, when serve.unpack names a GGUF file.
        unpacked=get_unpacked,
        code=code_of("query_endpoint"),
    output:
        predictions=layout.predictions("{model}", "{probe}", "{split}"),
        answers=layout.served_answers("{model}", "{probe}", "{split}"),
        stats=layout.inference_stats("{model}", "{probe}", "{split}"),
    log:
        "logs/query_endpoint/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/query_endpoint/{model}/{probe}/{split}.tsv"
    wildcard_constraints:
        model=_one_of(ENDPOINT_MODELS),
    conda:
        "../envs/tabprobe.yaml"
    # The requests are asynchronous (endpoint.concurrency at once): one thread keeps them going.
    threads: 1
    # The server's GPUs are the server's: none for a job, unless the model's `serve:` command runs
    # the server inside the job's submission (on Slurm: the model's one submission, the group
    # inference-<model> of the profile), which then asks for serve.gpus. inference_slot: one job
    # of a submission at a time, as infer_nli's.
    resources:
        gpu=get_endpoint_gpus,
        inference_slot=1,
    params:
        settings=get_endpoint_settings,
        serve_log="logs/serve/{model}.log",
    script:
        "../workflow/scripts/query_endpoint.py"
