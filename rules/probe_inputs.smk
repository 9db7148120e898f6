# The input functions of probes.smk: the files a probe reads (its dataset's examples and tables, the
# files of its needs, external sets, curation), its code, and its options and cap from config.

from tabprobe.config import curation_files, probe_limit, probe_options, probe_splits
from tabprobe.config.settings import probe_dataset
from tabprobe.data.datasets import get_dataset
from tabprobe.io import files_below
from tabprobe.probes import get_probe, needs, source_files


def get_probe_sources(wildcards):
    """The probe's module and the package modules it imports: a script rule does not notice
    edits to the modules it imports, so listing them as inputs makes an edited probe re-run
    (that probe only), and an edited helper re-run the probes that use it."""
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files(wildcards.probe)]


def get_probe_needs(wildcards):
    """The files of the probe's needs on the split (tabprobe.probes.needs: the parse, the relevance
    source, a dataset's own such as the hand-made counterfactuals), by need: an edited line or
    table of them re-generates the probes that read them, and only those."""
    return needs.files(get_probe(wildcards.probe), wildcards.split, config)


def get_need_settings(wildcards):
    """The settings of the probe's needs ({} for a probe whose needs have none): turning one off
    (counterfactuals_verify) re-runs only the probes that read that need."""
    return canonical(needs.settings(get_probe(wildcards.probe), config))


def get_probe_data(wildcards):
    """The split's gold examples and tables, of the probe's dataset."""
    dataset = get_dataset(probe_dataset(wildcards.probe))
    return {"examples": dataset.examples(wildcards.split), "tables": dataset.tables(wildcards.split)}


def get_relevance_annotations(wildcards):
    relevance = config["relevance"]
    return {"annotations": relevance["annotations"]} if relevance["source"] == "annotations" else {}


def get_external_files(wildcards):
    """Every file of an external set, so an edited or added table re-reads it."""
    return [str(p) for p in files_below(config["probes"][wildcards.probe]["external"], (".tsv", ".json"))]


def get_original_examples(wildcards):
    """The paper dataset's baseline examples of the split, where it runs: an external set (in its
    format) counts its paired lines that the baseline's cap left without a prediction on their gold
    example."""
    baseline = PAPER.baseline_probe
    if baseline in PROBES and wildcards.split in probe_splits(config, baseline):
        return {"original": layout.probe_examples(baseline, wildcards.split)}
    return {}


def get_external_folder(wildcards):
    return config["probes"][wildcards.probe]["external"]


def get_external_spec(wildcards):
    """{name: label_change} for an external set, {} for a registered probe: only this probe's
    entry, so adding an external set does not change the params of other probes' jobs."""
    return {wildcards.probe: EXTERNALS[wildcards.probe]} if wildcards.probe in EXTERNALS else {}


def get_probe_options(wildcards):
    """The probe's own options; `splits` and `max_examples` are the workflow's."""
    return canonical(probe_options(config, wildcards.probe))


def get_curation_files(wildcards):
    """A person's curation decisions on this probe's examples (probes.<name>.curation): editing
    the file re-generates this probe, and only this probe."""
    return curation_files(config, wildcards.probe)


def get_probe_limit(wildcards):
    return probe_limit(config, wildcards.probe)
