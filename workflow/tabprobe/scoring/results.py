"""One results table for the whole run, and the record of how the run was made.

`results/results.parquet` (and `.csv`, for a spreadsheet) holds every score of the run in one
long, tidy table: a row per (model, probe, split, statistic, label) with its mean, standard
deviation, bootstrap interval, n, and the paper's value where the paper prints one for a model
of that kind. It is built with polars by a lazy scan over the per-probe score files, so only the
final table is materialised. The report, the verdicts and `tabprobe compare` read from it.

`results/run.json` is what a reader needs to reproduce the numbers: the config as run, package
versions, the repository commit, checkpoint fingerprints, the relevance source and the caps.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import platform
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from tabprobe import code_inputs, schemas
from tabprobe.config import external_probes, min_examples_record, plan_layers
from tabprobe.config.names import PROBE_NAME
from tabprobe.data.datasets import all_datasets, paper_dataset, resolve
from tabprobe.errors import CorruptFileError
from tabprobe.io import atomic_path, read_json, read_parquet, write_json, write_parquet
from tabprobe.probes import REGISTRY, get_probe, is_external, register_externals
from tabprobe.scoring import paper

log = logging.getLogger(__name__)

KEYS = ["model", "probe", "split", "statistic", "label"]
PACKAGES = ("tabprobe", "snakemake", "torch", "transformers", "spacy", "polars", "pyarrow", "numpy", "openai")


def reference_of(model: str, premise: str | None) -> str | None:
    """Which of the paper's rows a model stands beside: RoBERTa-large's for a model that reads its
    table, the hypothesis-only model's for one that does not; none for the models derived from
    them (inoculated `<model>.ino-...`, controlled variance `<model>.cv-<size>`), whose paper numbers are
    in the report's inoculation tables."""
    if premise is None or "." in model:
        return None
    return "hypothesis_only" if premise == "hypothesis_only" else "premise"


def collect(score_paths: Sequence[str | Path], premises: Mapping[str, str]) -> pl.DataFrame:
    """Every score of the run in one table, sorted by its keys, with the paper's value beside each
    cell it has one for. `premises`: model -> its premise rendering (config `models:`)."""
    for path in score_paths:  # the contract check of every other reader, before the lazy scan
        read_parquet(path, schemas.SCORES)
    if not score_paths:
        return pl.from_arrow(schemas.RESULTS.empty_table())
    references = pl.DataFrame(
        paper.reference_cells(),
        schema={
            "reference": pl.String,
            "probe": pl.String,
            "split": pl.String,
            "statistic": pl.String,
            "label": pl.String,
            "paper": pl.Float64,
        },
    )
    models = pl.DataFrame(
        {"model": list(premises), "reference": [reference_of(m, p) for m, p in premises.items()]},
        schema={"model": pl.String, "reference": pl.String},
    )
    datasets = pl.DataFrame(
        [{"probe": probe, "dataset": dataset_of_scores(probe)} for probe in _probes_of(score_paths)],
        schema={"probe": pl.String, "dataset": pl.String},
    )
    table = (
        pl.scan_parquet([str(p) for p in score_paths])
        .join(models.lazy(), on="model", how="left")
        .join(references.lazy(), on=["reference", "probe", "split", "statistic", "label"], how="left")
        .drop("reference")
        .join(datasets.lazy(), on="probe", how="left")
        .select(schemas.RESULTS.names)
        .sort(KEYS)
        .collect()
    )
    duplicated = table.filter(table.select(KEYS).is_duplicated())
    if duplicated.height:
        first = duplicated.row(0, named=True)
        raise CorruptFileError(
            f"{duplicated.height} score rows share their keys (first: "
            f"{', '.join(f'{k}={first[k]}' for k in KEYS)}): two score files claim the same cells"
        )
    return table


def _probes_of(score_paths: Sequence[str | Path]) -> list[str]:
    """The probes the score files are of (each file holds one model's scores of one probe)."""
    return sorted(
        {probe for path in score_paths for probe in pl.read_parquet(path, columns=["probe"])["probe"].unique()}
    )


def dataset_of_scores(probe: str) -> str:
    """The dataset a probe's scores belong to: the registered probe's; the paper dataset's for an
    external set (given in its format) and for the rows of the paper's experiments, which no probe
    name spells ("table4:label_flipped", "table7:challenge", "num_comparative[30-49]"). A probe the
    registry does not know is an error: its scores are never filed under a dataset they may not be of."""
    if is_external(probe) or not re.fullmatch(PROBE_NAME, probe):
        return paper_dataset().name
    if probe not in REGISTRY:
        raise CorruptFileError(
            f"scores of probe {probe!r}, which no registered dataset's registry names: register its dataset "
            "(`datasets:` in config, docs/adding-a-dataset.md) or leave its score files out"
        )
    return get_probe(probe).datasets[0]


def write(table: pl.DataFrame, parquet_out: str | Path, csv_out: str | Path) -> None:
    """The table as Parquet (schemas.RESULTS) and as CSV (a header line, one row per score, empty
    cells for missing values), each written atomically."""
    write_parquet(table.to_arrow(), parquet_out, schemas.RESULTS)
    with atomic_path(csv_out) as tmp:
        table.write_csv(tmp, null_value="")


def read(path: str | Path) -> pl.DataFrame:
    return pl.from_arrow(read_parquet(path, schemas.RESULTS))


class Index:
    """The results table keyed by (model, probe, split, statistic, label): the report, the
    verdicts and `tabprobe compare` ask for thousands of single cells, each a dict lookup here
    rather than a scan of the table."""

    def __init__(self, table: pl.DataFrame):
        self.table = table
        self._cells = {tuple(row[k] for k in KEYS): row for row in table.iter_rows(named=True)}
        # Asked for every table of the report: gathered once, not by a scan of every cell each time.
        self._splits_of: dict[str, set[str]] = {}
        for _, probe, split, _, _ in self._cells:
            self._splits_of.setdefault(probe, set()).add(split)

    def get(self, model: str, probe: str, split: str, statistic: str, label: str = "all") -> dict | None:
        """The score of one cell, as a dict of the table's columns; None if the run has none."""
        return self._cells.get((model, probe, split, statistic, label))

    def first(
        self, model: str, probe: str, statistic: str, label: str = "all", needs_interval: bool = False
    ) -> tuple[str, dict] | None:
        """(split, score) on the first split of the showcase order (every dataset's, the paper's
        first: `ReportPart.showcase_order`) where the cell has a mean (and, `needs_interval`, an
        interval); None where it has none on any split."""
        for split in showcase_order():
            score = self.get(model, probe, split, statistic, label)
            if score and score["mean"] is not None and (not needs_interval or score["ci_low"] is not None):
                return split, score
        return None

    def splits_with(self, probes: Iterable[str]) -> list[str]:
        """The splits of the paper dataset (in its order) where any of the probes has scores."""
        present = set().union(*(self._splits_of.get(probe, ()) for probe in probes))
        return [s for s in paper_dataset().splits if s in present]

    def models(self) -> list[str]:
        return sorted({model for (model, *_) in self._cells})

    def labels(self, model: str) -> list[str]:
        """The labels a model's scores are kept under (a controlled-variance model's: one per repeat)."""
        return sorted({label for (m, *_, label) in self._cells if m == model})


def showcase_order() -> list[str]:
    """Every registered dataset's showcase order, the paper dataset's first."""
    datasets = sorted(all_datasets(), key=lambda d: not d.paper)
    return list(dict.fromkeys(s for d in datasets for s in d.report.showcase_order))


# ---------------------------------------------------------------- run.json


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def repository_commit(folder: str | Path) -> dict | None:
    """The git commit of the code in `folder` and whether the working tree differs from it; None
    outside a git checkout (an unpacked release, say) or without git."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(folder), *args], check=True, capture_output=True, text=True, timeout=30
        ).stdout.strip()

    try:
        sha = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return {"sha": sha, "modified": bool(changed)}


def run_record(
    config: Mapping[str, Any],
    models: Mapping[str, Mapping[str, Any]],
    coverage: Iterable[Mapping],
    relevance: Mapping[str, Mapping],
    code_folder: str | Path,
    min_examples: Mapping[str, Any] | None = None,
) -> dict:
    """What run.json holds. `models`: model -> what infer_nli recorded (checkpoint, fingerprint,
    premise, precision, max_length, truncation counts, training metadata); `min_examples`: the
    fewest examples each probe needs for a verdict (config.min_examples_record; from `config` where
    not given), which the report reads from here."""
    caps: dict[str, dict[str, int | None]] = {}
    for c in coverage:
        caps.setdefault(c["probe"], {})[c["split"]] = c["limit"]
    return {
        "config": json.loads(json.dumps(config)),  # plain JSON types: what `snakemake --configfile` reads back
        "versions": package_versions(),
        "commit": repository_commit(code_folder),
        "models": {name: dict(info) for name, info in sorted(models.items())},
        "relevance": {
            split: {k: r.get(k) for k in ("source", "examples", "with_relevant_rows", "not_annotated")}
            for split, r in sorted(relevance.items())
        },
        "caps": caps,
        "min_examples": dict(min_examples) if min_examples else min_examples_record(config),
        "data": data_provenance(config, coverage),
        # Where each setting of the experiment blocks came from: the config, `full: true`, or the defaults.
        "layers": plan_layers(config),
    }


def data_provenance(config: Mapping[str, Any], coverage: Iterable[Mapping]) -> dict:
    """Which data the numbers rest on: each dataset's copy (its `provenance`; the paper dataset's
    always, another's where one of its probes ran), and for each probe who made its examples
    (probes.MADE_BY) and, for a set read as it is, where it was read from."""
    from tabprobe.probes import MADE_BY, made_by

    probes: dict[str, dict] = {}
    for c in coverage:
        entry = probes.setdefault(c["probe"], {"made_by": made_by(c["probe"])})
        entry["made_by_text"] = MADE_BY[entry["made_by"]]
        if c.get("source"):
            entry.setdefault("sources", {})[c["split"]] = c["source"]
    ran = {dataset_of_scores(p) for p in probes}
    data = {
        d.name: resolve(d.provenance)(config) for d in all_datasets() if d.provenance and (d.paper or d.name in ran)
    }
    return {**data, "probes": dict(sorted(probes.items()))}


def write_run_record(record: Mapping[str, Any], out: str | Path) -> None:
    # In the order it was built: the config keeps the order of the config file (the models' order is
    # the report's, and a config read back in another order would change params and re-run the report).
    write_json(record, out, sort_keys=False)


def config_of(run_json: str | Path) -> dict:
    """The config a run was made with, from its run.json."""
    try:
        return json.loads(Path(run_json).read_text(encoding="utf-8"))["config"]
    except (OSError, ValueError, KeyError) as error:
        raise CorruptFileError(f"{run_json}: not a tabprobe run.json ({error})") from error


def model_facts(inference_stats: Mapping[str, Iterable[str | Path]]) -> dict[str, dict]:
    """Per model, from infer_nli's (or query_endpoint's) stats files (model -> its files): its
    checkpoint and fingerprint, and premises cut at max_length summed over probes and splits; for
    a served model, how it was asked and scored, and each job's requests, retries, tokens,
    seconds and unparsed answers with their sums."""
    models: dict[str, dict] = {}
    for model, paths in inference_stats.items():
        for path in paths:
            stats = json.loads(Path(path).read_text())
            info = models.setdefault(
                model,
                {
                    k: stats.get(k)
                    for k in (
                        "premise",
                        "premise_selection",
                        "premise_holds",
                        "checkpoint",
                        "meta",
                        "fingerprint",
                        "precision",
                        "max_length",
                        "causal",
                    )
                }
                | {"truncated": 0, "examples": 0, "selected": 0},
            )
            info["truncated"] += stats["truncated"]
            info["selected"] += stats.get("selected", 0)  # a causal LM's stats count none
            info["examples"] += stats["examples"]
            if "endpoint" in stats:
                served_facts(info, stats)
    return models


def served_facts(info: dict, stats: Mapping[str, Any]) -> None:
    """Add one query_endpoint job's statistics to a served model's facts (`info`, in run.json)."""
    info.setdefault("endpoint", stats["endpoint"])
    job = dict(stats["job"])
    jobs = info.setdefault("endpoint_jobs", {})
    jobs[job.pop("probe_file")] = job
    totals = info.setdefault("endpoint_totals", {})
    for key, value in job.items():
        if isinstance(value, (int, float)):
            totals[key] = round(totals.get(key, 0) + value, 2)


def collect_results(
    score_paths: Sequence[str],
    inference_stats: Mapping[str, Sequence[str]],
    coverage_paths: Sequence[str],
    relevance_summaries: Mapping[str, str],
    parquet_out: str,
    csv_out: str,
    run_out: str,
    config: Mapping[str, Any],
    min_examples: Mapping[str, Any] | None = None,
) -> None:
    """Rule collect_results: every score of the run into the results table (.parquet and .csv), and the run
    record. `score_paths`: the per-probe, pooled, inoculation and controlled-variance score files;
    `inference_stats`: model -> infer_nli's stats files; `relevance_summaries`: split ->
    find_relevant_rows's summary; `min_examples`: the rule's param (config.min_examples_record), so
    that changing a minimum re-writes run.json and the report that reads it."""
    # The run record says who made each probe's examples, an external set's too.
    register_externals(external_probes(config))
    models = model_facts(inference_stats)
    table = collect(score_paths, {m: info["premise"] for m, info in models.items()})
    write(table, parquet_out, csv_out)
    record = run_record(
        config,
        models,
        [read_json(p) for p in coverage_paths],
        {split: read_json(p) for split, p in relevance_summaries.items()},
        code_folder=code_inputs.PACKAGE_DIR.parent,
        min_examples=min_examples,
    )
    write_run_record(record, run_out)
    log.info(
        "results: %d scores of %d models in %s and %s; run record %s (commit %s)",
        table.height,
        table["model"].n_unique(),
        parquet_out,
        csv_out,
        run_out,
        (record["commit"] or {}).get("sha", "unknown: not a git checkout"),
    )
