rule generate_probe:
    wildcard_constraints:
        probe=_one_of(GENERATED_PROBES),
    input:
        unpack(get_parses),
        unpack(get_relevance),
        examples=layout.examples("{split}"),
        tables=layout.tables("{split}"),
        probe_sources=get_probe_sources,
        curation=get_curation_files,
        code=code_of("generate_probe"),
    output:
        probe=layout.probe_examples("{probe}", "{split}"),
        coverage=layout.coverage("{probe}", "{split}"),
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
        examples=layout.examples("{split}"),
        code=code_of("parse_hypotheses"),
    output:
        parses=layout.parses("{split}"),
        summary=layout.parses_summary("{split}"),
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


rule find_relevant_rows:
    input:
        unpack(get_relevance_annotations),
        examples=layout.examples("{split}"),
        tables=layout.tables("{split}"),
        code=code_of("find_relevant_rows"),
    output:
        relevance=layout.relevance("{split}"),
        summary=layout.relevance_summary("{split}"),
    params:
        source=config["relevance"]["source"],
    log:
        "logs/find_relevant_rows/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/find_relevant_rows.py"


rule ingest_external_probe:
    wildcard_constraints:
        probe=_one_of(EXTERNALS),
    input:
        unpack(get_original_examples),
        files=get_external_files,
        examples=layout.examples("{split}"),
        code=code_of("ingest_external_probe"),
    output:
        probe=layout.probe_examples("{probe}", "{split}"),
        coverage=layout.coverage("{probe}", "{split}"),
    params:
        folder=get_external_folder,
    log:
        "logs/ingest_external_probe/{probe}/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/ingest_external_probe.py"
