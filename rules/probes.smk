rule generate_probe:
    input:
        unpack(get_parses),
        unpack(get_relevance),
        unpack(get_human_counterfactuals),
        unpack(get_probe_data),
        probe_sources=get_probe_sources,
        curation=get_curation_files,
        code=code_of("generate_probe"),
    output:
        probe=layout.probe_examples("{probe}", "{split}"),
        coverage=layout.coverage("{probe}", "{split}"),
    log:
        "logs/generate_probe/{probe}/{split}.log",
    benchmark:
        "benchmarks/generate_probe/{probe}/{split}.tsv"
    wildcard_constraints:
        probe=_one_of(GENERATED_PROBES),
    # After training (9-10), before the fine-tunings (5) and inference (0): a probe set is seconds
    # of work that unblocks inference and inoculation's train challenge (in the default run of
    # 2026-11-26 the challenge was made last, so inoculation began at 14 of 17 minutes).
    priority: 6
    conda:
        "../envs/tabprobe.yaml"
    params:
        options=get_probe_options,
        seed=config["seed"],
        limit=get_probe_limit,
        verify_counterfactuals=get_counterfactuals_verify,
    script:
        "../workflow/scripts/generate_probe.py"


rule parse_hypotheses:
    input:
        examples=layout.examples("{split}"),
        code=code_of("parse_hypotheses"),
    output:
        parses=layout.parses("{split}"),
        summary=layout.parses_summary("{split}"),
    log:
        "logs/parse_hypotheses/{split}.log",
    benchmark:
        "benchmarks/parse_hypotheses/{split}.tsv"
    # Before the fine-tunings and inference: the hypothesis probes wait for it (see generate_probe).
    priority: 6
    conda:
        "../envs/tabprobe.yaml"
    # One process: a two-thread job waits for both cores to be free at once, which a stream of
    # one-thread jobs never leaves (2026-11-26: train's parse, 21 s of work, started at 762 s and
    # held back inoculation's challenge); spaCy parses train's hypotheses in about 30 s on one.
    threads: 1
    params:
        settings=canonical(config["parse"]),
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
    log:
        "logs/find_relevant_rows/{split}.log",
    # Before the fine-tunings and inference: the evidence probes wait for it (see generate_probe).
    priority: 6
    conda:
        "../envs/tabprobe.yaml"
    # The aligner's encoder (MiniLM) reads each distinct hypothesis and row text of the split once:
    # all of alpha1 in 22-39 s on one thread of the 2-core machine (docs/relevance.md#time); a
    # second thread was slower there while other jobs ran, so the job leaves it to them.
    threads: 1
    params:
        source=config["relevance"]["source"],
        aligner=canonical(config["relevance"]["aligner"]),
    script:
        "../workflow/scripts/find_relevant_rows.py"


rule ingest_external_probe:
    input:
        unpack(get_original_examples),
        files=get_external_files,
        examples=layout.examples("{split}"),
        code=code_of("ingest_external_probe"),
    output:
        probe=layout.probe_examples("{probe}", "{split}"),
        coverage=layout.coverage("{probe}", "{split}"),
    log:
        "logs/ingest_external_probe/{probe}/{split}.log",
    wildcard_constraints:
        probe=_one_of(EXTERNALS),
    conda:
        "../envs/tabprobe.yaml"
    params:
        folder=get_external_folder,
    script:
        "../workflow/scripts/ingest_external_probe.py"
