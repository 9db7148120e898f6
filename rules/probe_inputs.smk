# The input functions of probes.smk: the files a probe reads (parses, relevance, hand-made
# counterfactuals, external sets, curation), its code, and its options and cap from config.

from tabprobe.data.infotabs import counterfactuals as human_counterfactuals
from tabprobe.config import curation_files, probe_limit, probe_options, probe_splits
from tabprobe.config.settings import probe_dataset
from tabprobe.data.datasets import get_dataset
from tabprobe.data.infotabs.external import files_below
from tabprobe.probes import get_probe, source_files


def get_probe_sources(wildcards):
    """The probe's module and the package modules it imports: a script rule does not notice
    edits to the modules it imports, so listing them as inputs makes an edited probe re-run
    (that probe only), and an edited helper re-run the probes that use it."""
    return [str(Path(CODE_DIR) / "tabprobe" / path) for path in source_files(wildcards.probe)]


def get_human_counterfactuals(wildcards):
    """The split's hand-made counterfactual files (TSV first), for a probe that reads them: an
    edited line or table re-generates it. Without a local copy, the downloaded release."""
    if not get_probe(wildcards.probe).needs_human_counterfactuals:
        return {}
    root = config["counterfactuals_dir"]
    if not root:
        return {"counterfactuals": [COUNTERFACTUALS_DOWNLOAD]}
    return {"counterfactuals": [str(p) for p in human_counterfactuals.split_files(root, wildcards.split)]}


def get_probe_data(wildcards):
    """The split's gold examples and tables, of the probe's dataset, and for a probe that
    re-executes the human-written programs, the split's programs."""
    dataset = get_dataset(probe_dataset(wildcards.probe))
    data = {
        "examples": dataset.examples(wildcards.split),
        "tables": dataset.tables(wildcards.split),
    }
    if get_probe(wildcards.probe).needs_programs:
        data["programs"] = dataset.ingest_outputs(wildcards.split)["programs"]
    return data


def get_counterfactuals_verify(wildcards):
    """Whether the hand-made counterfactuals are checked against the release, for the probe that
    reads them; the other probes' value stays fixed, so turning the check off re-runs only it."""
    return config["counterfactuals_verify"] if get_probe(wildcards.probe).needs_human_counterfactuals else True


def get_relevance(wildcards):
    """Which rows each hypothesis needs (rule find_relevant_rows), for probes that read it."""
    if get_probe(wildcards.probe).needs_relevance:
        return {"relevance": layout.relevance(wildcards.split)}
    return {}


def get_relevance_annotations(wildcards):
    relevance = config["relevance"]
    return {"annotations": relevance["annotations"]} if relevance["source"] == "annotations" else {}


def get_external_files(wildcards):
    """Every file of an external set, so an edited or added table re-reads it."""
    return [str(p) for p in files_below(config["probes"][wildcards.probe]["external"], (".tsv", ".json"))]


def get_original_examples(wildcards):
    """`original`'s examples of the split, where it runs: an external set counts its paired lines
    that `original`'s cap left without a prediction on their gold example."""
    if "original" in PROBES and wildcards.split in probe_splits(config, "original"):
        return {"original": layout.probe_examples("original", wildcards.split)}
    return {}


def get_external_folder(wildcards):
    return config["probes"][wildcards.probe]["external"]


def get_external_spec(wildcards):
    """{name: label_change} for an external set, {} for a registered probe: only this probe's
    entry, so adding an external set does not change the params of other probes' jobs."""
    return {wildcards.probe: EXTERNALS[wildcards.probe]} if wildcards.probe in EXTERNALS else {}


def get_parses(wildcards):
    """The split's spaCy parse, for probes that read it (Probe.needs_parse)."""
    if get_probe(wildcards.probe).needs_parse:
        return {"parses": layout.parses(wildcards.split)}
    return {}


def get_probe_options(wildcards):
    """The probe's own options; `splits` and `max_examples` are the workflow's."""
    return canonical(probe_options(config, wildcards.probe))


def get_curation_files(wildcards):
    """A person's curation decisions on this probe's examples (probes.<name>.curation): editing
    the file re-generates this probe, and only this probe."""
    return curation_files(config, wildcards.probe)


def get_probe_limit(wildcards):
    return probe_limit(config, wildcards.probe)
