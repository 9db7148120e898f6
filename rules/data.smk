rule download_infotabs:
    output:
        directory("resources/infotabs"),
    params:
        url=config["infotabs_url"],
    log:
        "logs/download_infotabs.log",
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/download_infotabs.py"


rule ingest_infotabs:
    input:
        unpack(get_infotabs_files),
        # How the data is read and cleaned: an edit re-ingests (and so re-runs what reads it).
        code=library_files("infotabs", "table", "download"),
    output:
        examples="results/data/{split}.parquet",
        tables="results/data/{split}.tables.parquet",
        summary="results/data/{split}.summary.json",
    params:
        root=infotabs_root(),
        on_duplicate=config["duplicates"],
        verify=config["infotabs_verify"],
    log:
        "logs/ingest_infotabs/{split}.log",
    benchmark:
        "benchmarks/ingest_infotabs/{split}.tsv"
    conda:
        "../envs/tabprobe.yaml"
    script:
        "../workflow/scripts/ingest_infotabs.py"
