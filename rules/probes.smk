rule generate_probe:
    input:
        unpack(get_parses),
        examples="results/data/{split}.parquet",
        tables="results/data/{split}.tables.parquet",
        probe_sources=get_probe_sources,
        code=library_files("perturb"),
    output:
        probe="results/probes/{probe}/{split}.parquet",
        coverage="results/probes/{probe}/{split}.coverage.json",
    params:
        options=get_probe_options,
        seed=config["seed"],
        limit=get_probe_limit,
    log:
        "logs/generate_probe/{probe}/{split}.log",
    benchmark:
        "benchmarks/generate_probe/{probe}/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/generate_probe.py"


rule parse_hypotheses:
    input:
        examples="results/data/{split}.parquet",
        code=library_files("parsing"),
    output:
        parses="results/parses/{split}.spacy",
        summary="results/parses/{split}.json",
    params:
        settings=canonical(config["parse"]),
    threads: 2
    log:
        "logs/parse_hypotheses/{split}.log",
    benchmark:
        "benchmarks/parse_hypotheses/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/parse_hypotheses.py"
