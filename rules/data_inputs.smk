# The input functions of data.smk, made for each dataset from its declaration (data/datasets.py,
# `Dataset.ingest`): what its check reads that another rule makes (a download, where there is no
# local copy), the check's own settings, what a copy holds (its digest, so that where it lies
# re-runs nothing), and the code of its jobs.

# The paper's data, downloaded where config names no local copy: InfoTabS's own rules (data.smk),
# whose decisions (which copy, which digest) are its package's.
from tabprobe.data.infotabs.counterfactuals import DOWNLOADED as COUNTERFACTUALS_DOWNLOAD
from tabprobe.data.infotabs.download import DOWNLOADED as INFOTABS_DOWNLOAD


def dataset_downloads(dataset):
    """The files another rule makes that the dataset's check reads (`Ingest.downloads`)."""

    def downloads(wildcards):
        return resolve(dataset.ingest.downloads)(config) if dataset.ingest.downloads else []

    return downloads


def dataset_check_settings(dataset):
    """The check's own settings (`Ingest.check_settings`: job argument -> config key)."""
    return {argument: config[key] for argument, key in dataset.ingest.check_settings.items()}


def dataset_digest(dataset):
    """What the dataset's copy of a split holds, by content (`Ingest.digest`): the same data given
    as a relative path, an absolute one, from a moved checkout or a cluster node that mounts it
    elsewhere re-runs nothing, while an edited line or table re-checks and re-ingests its split."""
    digest = resolve(dataset.ingest.digest)

    def digest_of(wildcards):
        return digest(config, wildcards.split)

    return digest_of


def dataset_modules(dataset, job):
    """The modules a dataset's check or ingest job runs beside the generic script (its job
    function's, and the one that says which folder it reads): code inputs of the rule."""
    jobs = {"check": dataset.ingest.check, "ingest": dataset.ingest.ingest}
    return [target.partition(":")[0] for target in (jobs[job], dataset.ingest.root) if target]
