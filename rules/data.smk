# No code inputs: the download is checked against the release's checksums (download.verify at
# ingest), so an edit to the downloader never needs the data fetched again.
rule download_infotabs:
    output:
        directory(layout.downloaded_infotabs()),
    log:
        "logs/download_infotabs.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        url=config["infotabs_url"],
    script:
        "../workflow/scripts/download_infotabs.py"


# The paper's hand-made counterfactual tables (probe cf_human), when no local copy is named;
# checked against the release's checksums by the jobs that read them.
rule download_counterfactuals:
    output:
        directory(layout.downloaded_counterfactuals()),
    log:
        "logs/download_counterfactuals.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        url=config["counterfactuals_url"],
    script:
        "../workflow/scripts/download_counterfactuals.py"


# The raw split is checked in a job of its own, before ingest_infotabs replaces anything: bad
# input (a line edited in place, a deleted table) then stops this job, and the results of the
# last good ingest stay as they were (Snakemake deletes a job's outputs before it runs). Its
# output is temporary: it runs only when ingest_infotabs must, and leaves no file behind.
rule check_infotabs:
    input:
        get_downloaded_infotabs,
        code=code_of("check_infotabs"),
    output:
        temp(layout.data_check("{split}")),
    log:
        "logs/check_infotabs/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    # No param follows the data: Snakemake records a failed job's params, and a digest of the
    # broken data would then re-run everything once the data is mended. ingest_infotabs holds it.
    params:
        on_duplicate=config["duplicates"],
        verify=config["infotabs_verify"],
    script:
        "../workflow/scripts/check_infotabs.py"


rule ingest_infotabs:
    input:
        checked=layout.data_check("{split}"),
        # How the data is read and cleaned: an edit re-ingests (and so re-runs what reads it).
        code=code_of("ingest_infotabs"),
    output:
        examples=layout.examples("{split}"),
        tables=layout.tables("{split}"),
        summary=layout.data_summary("{split}"),
    log:
        "logs/ingest_infotabs/{split}.log",
    benchmark:
        "benchmarks/ingest_infotabs/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    params:
        dataset=infotabs_digest,  # what the data is (an edit re-runs the split), not where it lies
        on_duplicate=config["duplicates"],
    script:
        "../workflow/scripts/ingest_infotabs.py"


# TabFact (docs/tabfact.md), read from the local copy `tabfact_dir`: checked in a job of its own
# first, as InfoTabS is, so that bad input leaves the last good ingest in place.
rule check_tabfact:
    input:
        code=code_of("check_tabfact"),
    output:
        temp(layout.data_check("{split}", dataset="tabfact")),
    log:
        "logs/check_tabfact/{split}.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        on_duplicate=config["duplicates"],
    script:
        "../workflow/scripts/check_tabfact.py"


rule ingest_tabfact:
    input:
        checked=layout.data_check("{split}", dataset="tabfact"),
        code=code_of("ingest_tabfact"),
    output:
        examples=layout.examples("{split}", dataset="tabfact"),
        tables=layout.tables("{split}", dataset="tabfact"),
        summary=layout.data_summary("{split}", dataset="tabfact"),
        programs=layout.programs("{split}"),
    log:
        "logs/ingest_tabfact/{split}.log",
    benchmark:
        "benchmarks/ingest_tabfact/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    params:
        dataset=tabfact_digest,  # what the copy holds (an edit re-ingests), not where it lies
        on_duplicate=config["duplicates"],
    script:
        "../workflow/scripts/ingest_tabfact.py"
