"""Where every file of a run lives, written down once.

The rules name their outputs with these functions (called with wildcard patterns such as
`probe_examples("{probe}", "{split}")`), the input functions of rules/common.smk name the same
files with real values, and the report, `tabprobe show` and `tabprobe compare` find a run's
files with them, given the run's results folder as `root`. Nothing reads a model, probe or split
name back out of a path: the rules hand the jobs {name: path} mappings built here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

RESULTS = "results"
RESOURCES = "resources"


def _in(root: str | Path, *parts: str) -> str:
    return "/".join([str(root).rstrip("/"), *parts])


# ---------------------------------------------------------------- data (rules/data.smk, probes.smk)
# A dataset's data files lie in its folder under the results (`Dataset.data_folder`: data/, or
# data/<dataset>/, since split names repeat across datasets); `Dataset.examples(split)` and its
# siblings name them. The paper dataset's are in data/ itself: DATA, the default below.
DATA = "data"


def data_file(name: str, root: str | Path = RESULTS, folder: str = DATA) -> str:
    """A file of a dataset's data folder (its check, its summary, a file of its own)."""
    return _in(root, folder, name)


def examples(split: str, root: str | Path = RESULTS, folder: str = DATA) -> str:
    """A split's gold examples (schemas.EXAMPLES)."""
    return data_file(f"{split}.parquet", root, folder)


def tables(split: str, root: str | Path = RESULTS, folder: str = DATA) -> str:
    """The tables a split's examples read (its dataset's table type's `tables` schema)."""
    return data_file(f"{split}.tables.parquet", root, folder)


def data_summary(split: str, root: str | Path = RESULTS, folder: str = DATA) -> str:
    return data_file(f"{split}.summary.json", root, folder)


def data_check(split: str, root: str | Path = RESULTS, folder: str = DATA) -> str:
    return data_file(f"{split}.checked.json", root, folder)


def parses(split: str, root: str | Path = RESULTS) -> str:
    """The spaCy parse of a split's hypotheses (a DocBin)."""
    return _in(root, "parses", f"{split}.spacy")


def parses_summary(split: str, root: str | Path = RESULTS) -> str:
    return _in(root, "parses", f"{split}.json")


def relevance(split: str, root: str | Path = RESULTS) -> str:
    """Which rows each hypothesis of a split needs (schemas.RELEVANCE)."""
    return _in(root, "relevance", f"{split}.parquet")


def relevance_summary(split: str, root: str | Path = RESULTS) -> str:
    return _in(root, "relevance", f"{split}.json")


# ---------------------------------------------------------------- probes, predictions, scores


def probe_examples(probe: str, split: str, root: str | Path = RESULTS) -> str:
    """A probe's perturbed examples of a split (schemas.PROBE)."""
    return _in(root, "probes", probe, f"{split}.parquet")


def coverage(probe: str, split: str, root: str | Path = RESULTS) -> str:
    """How many gold examples a probe perturbed, and why it skipped the rest."""
    return _in(root, "probes", probe, f"{split}.coverage.json")


def predictions_folder(root: str | Path = RESULTS) -> str:
    """Where every model's predictions are, a folder per model."""
    return _in(root, "predictions")


def predictions(model: str, probe: str, split: str, root: str | Path = RESULTS) -> str:
    return _in(predictions_folder(root), model, probe, f"{split}.parquet")


def inference_stats(model: str, probe: str, split: str, root: str | Path = RESULTS) -> str:
    """What infer_nli records beside its predictions: checkpoint, fingerprint, truncation."""
    return _in(predictions_folder(root), model, probe, f"{split}.json")


def served_answers(model: str, probe: str, split: str, root: str | Path = RESULTS) -> str:
    """What a served model answered, beside its predictions (schemas.SERVED_ANSWERS)."""
    return _in(predictions_folder(root), model, probe, f"{split}.answers.parquet")


def scores(model: str, probe: str, split: str, root: str | Path = RESULTS) -> str:
    return _in(root, "scores", model, probe, f"{split}.parquet")


def pooled_scores(table: str, model: str, column: str, split: str, root: str | Path = RESULTS) -> str:
    """A pooled column of paper Table 4 or 7 (one sampled edit per gold example)."""
    return _in(root, "pooled", table, model, column, f"{split}.parquet")


def inoculation_scores(model: str, experiment: str, root: str | Path = RESULTS) -> str:
    return _in(root, "inoculation", model, f"{experiment}.parquet")


def inoculation_summary(model: str, experiment: str, root: str | Path = RESULTS) -> str:
    return _in(root, "inoculation", model, f"{experiment}.json")


def variance_scores(model: str, root: str | Path = RESULTS) -> str:
    return _in(root, "variance", f"{model}.parquet")


def variance_job_scores(model: str, size: str | int, resample: str | int, root: str | Path = RESULTS) -> str:
    """One (training size, repeat) of the controlled-variance experiment; size 0: the model before."""
    return _in(root, "variance", model, str(size), f"r{resample}.parquet")


def variance_summary(model: str, root: str | Path = RESULTS) -> str:
    return _in(root, "variance", f"{model}.json")


# ---------------------------------------------------------------- the run's results and report


def results_table(root: str | Path = RESULTS) -> str:
    """Every score of the run, one row each (tabprobe.scoring.results)."""
    return _in(root, "results.parquet")


def results_csv(root: str | Path = RESULTS) -> str:
    return _in(root, "results.csv")


def run_record(root: str | Path = RESULTS) -> str:
    """run.json: the config as run, versions, commit, fingerprints."""
    return _in(root, "run.json")


def report_html(root: str | Path = RESULTS) -> str:
    return _in(root, "report", "index.html")


def report_markdown(root: str | Path = RESULTS) -> str:
    return _in(root, "report", "report.md")


def report_figures(root: str | Path = RESULTS) -> str:
    return _in(root, "report", "figures")


# ---------------------------------------------------------------- checkpoints and data we keep


def shots(model: str, root: str | Path = RESULTS) -> str:
    """The k-shot examples of a causal LM's prompts (JSON), the same for every probe."""
    return _in(root, "shots", f"{model}.json")


def unpacked_checkpoint(model: str) -> str:
    """A served model's GGUF file unpacked into a checkpoint folder for its server (serve.unpack)."""
    return f"{RESOURCES}/served/{model}"


def trained_model(model: str) -> str:
    """A model tabprobe trains (`train:`) or builds (`init:`)."""
    return _in(RESOURCES, "models", model)


def inoculated_checkpoint(model: str, experiment: str, size: str | int, learning_rate: str | None = None) -> str:
    """One inoculation of the grid (`learning_rate`, as config.inoculation_inputs.learning_rate_text
    writes it), or without it the one kept."""
    return _in(
        RESOURCES,
        "inoculated",
        model,
        experiment,
        str(size),
        f"lr{learning_rate}" if learning_rate is not None else "best",
    )


def variance_checkpoint(model: str, size: str | int, resample: str | int) -> str:
    return _in(RESOURCES, "variance", model, str(size), f"r{resample}")


# ---------------------------------------------------------------- the report's failing examples


def showcase_split(splits: Iterable[str], order: Sequence[str]) -> str:
    """The first of `order` (the dataset's, `ReportPart.showcase_order`) among `splits`."""
    splits = set(splits)
    return next(s for s in order if s in splits)


def showcase_inputs(
    probe: str,
    split: str,
    models: Sequence[str],
    with_original: bool,
    root: str | Path = RESULTS,
    original: str = "original",
    folder: str = DATA,
) -> dict[str, str]:
    """The files the failing examples of a probe are drawn from: the probe's examples, the
    split's gold examples and tables (in its dataset's data `folder`), and each model's predictions
    on the probe and, `with_original`, on the unperturbed split (`original`: its dataset's
    unperturbed probe)."""
    files = {
        "probe": probe_examples(probe, split, root),
        "examples": examples(split, root, folder),
        "tables": tables(split, root, folder),
    }
    for model in models:
        files[f"predictions:{model}"] = predictions(model, probe, split, root)
        if with_original:
            files[f"original:{model}"] = predictions(model, original, split, root)
    return files
