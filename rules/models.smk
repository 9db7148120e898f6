rule init_model:
    output:
        directory("resources/models/{model}"),
    params:
        init=get_model_init,
    log:
        "logs/init_model/{model}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/init_model.py"


rule infer_nli:
    input:
        probe="results/probes/{probe}/{split}.parquet",
        checkpoint=get_checkpoint,
    output:
        predictions="results/predictions/{model}/{probe}/{split}.parquet",
        stats="results/predictions/{model}/{probe}/{split}.json",
    params:
        settings=get_inference_settings,
    # torch's intra-op threads; Snakemake lowers this to --cores on a small machine.
    threads: 4
    # One GPU on a cluster node; locally, a resource not given with --resources is not
    # limited, so the job also runs on a CPU-only workstation (it uses CUDA when present).
    resources:
        gpu=1,
    log:
        "logs/infer_nli/{model}/{probe}/{split}.log",
    benchmark:
        "benchmarks/infer_nli/{model}/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/infer_nli.py"
