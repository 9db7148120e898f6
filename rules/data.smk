# No code inputs: the download is checked against the release's checksums (download.verify at
# ingest), so an edit to the downloader never needs the data fetched again.
rule download_infotabs:
    output:
        directory(INFOTABS_DOWNLOAD),
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
        directory(COUNTERFACTUALS_DOWNLOAD),
    log:
        "logs/download_counterfactuals.log",
    conda:
        "../envs/tabprobe.yaml"
    params:
        url=config["counterfactuals_url"],
    script:
        "../workflow/scripts/download_counterfactuals.py"


# Each dataset's check and ingest (rules check_<dataset> and ingest_<dataset>, data/datasets.py
# `Dataset.ingest`): the raw split is checked in a job of its own, before the ingest replaces
# anything: bad input (a line edited in place, a deleted table) then stops this job, and the results
# of the last good ingest stay as they were (Snakemake deletes a job's outputs before it runs). Its
# output is temporary: it runs only when the ingest must, and leaves no file behind.
for _dataset in DATASETS:

    rule:
        name:
            f"check_{_dataset.name}"
        input:
            partial(derived.dataset_downloads, config, _dataset.name),
            code=code_of("check_dataset", derived.dataset_modules(_dataset.name, "check")),
        output:
            temp(_dataset.data_check("{split}")),
        log:
            f"logs/check_{_dataset.name}/{{split}}.log",
        localrule: True
        conda:
            "../envs/tabprobe.yaml"
        # No param follows the data: Snakemake records a failed job's params, and a digest of the
        # broken data would then re-run everything once the data is mended. The ingest holds it.
        params:
            dataset=_dataset.name,
            on_duplicate=config["duplicates"],
            settings=derived.dataset_check_settings(config, _dataset.name),
        script:
            "../workflow/scripts/check_dataset.py"

    rule:
        name:
            f"ingest_{_dataset.name}"
        input:
            checked=_dataset.data_check("{split}"),
            # How the data is read and cleaned: an edit re-ingests (and so re-runs what reads it).
            code=code_of("ingest_dataset", derived.dataset_modules(_dataset.name, "ingest")),
        output:
            **_dataset.ingest_outputs("{split}"),
        log:
            f"logs/ingest_{_dataset.name}/{{split}}.log",
        benchmark:
            f"benchmarks/ingest_{_dataset.name}/{{split}}.tsv"
        conda:
            "../envs/tabprobe.yaml"
        params:
            dataset=_dataset.name,
            digest=partial(derived.dataset_digest, config, _dataset.name),  # what the data is (an edit re-runs the split), not where it lies
            on_duplicate=config["duplicates"],
        script:
            "../workflow/scripts/ingest_dataset.py"
