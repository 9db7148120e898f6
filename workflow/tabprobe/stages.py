"""One function per workflow rule: read inputs, call the library, write outputs atomically.

The Snakemake adapters in workflow/scripts/ only unpack `snakemake.*` and call these, so every
stage can also be run and tested without Snakemake.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import download, infotabs, logs, models, perturb, report, schemas, scoring
from .io import atomic_dir, read_parquet, write_json, write_parquet, write_text

log = logging.getLogger(__name__)


def download_infotabs(dest: str, url: str, timeout: float) -> None:
    download.download(dest, url=url, timeout=timeout)


def check_infotabs(root: str, split: str, out: str, on_duplicate: str = "warn", verify: bool = True) -> None:
    """Read and validate a split without writing its results: bad input stops here, before the
    results of an earlier ingest are touched. `out` records what was checked."""
    if verify:
        download.verify(root)
    ingested = infotabs.ingest_split(root, split, on_duplicate=on_duplicate)
    write_json({"split": split, "source": str(root), "examples": ingested.examples.num_rows,
                "tables": ingested.tables.num_rows}, out)
    log.info("%s: %d examples over %d tables are well formed", split, ingested.examples.num_rows, ingested.tables.num_rows)
    if ingested.duplicate_lines:
        lines = ", ".join(f"{line} repeats {first}" for line, first, _ in ingested.duplicate_lines[:5])
        more = len(ingested.duplicate_lines) - 5
        log.warning("%s: %d duplicate hypotheses kept (`duplicates: warn`; `error` refuses them): line %s%s", split,
                    len(ingested.duplicate_lines), lines, f" and {more} more" if more > 0 else "", extra=logs.TERMINAL)


def ingest_infotabs(root: str, split: str, examples_out: str, tables_out: str, summary_out: str,
                    on_duplicate: str = "warn", verify: bool = True) -> None:
    if verify:
        download.verify(root)
    ingested = infotabs.ingest_split(root, split, on_duplicate=on_duplicate)
    write_parquet(ingested.examples, examples_out, schemas.EXAMPLES)
    write_parquet(ingested.tables, tables_out, schemas.TABLES)
    write_json({"split": split, "source": str(root), **ingested.summary}, summary_out)
    log.info("%s: %d examples over %d tables", split, ingested.examples.num_rows, ingested.tables.num_rows)


def register_externals(externals: Mapping[str, str | None] | None) -> None:
    """Make the config's external probe sets (name -> label_change) known to get_probe."""
    from .probes import register_external

    for name, label_change in (externals or {}).items():
        register_external(name, label_change)


def find_relevant_rows(examples_path: str, tables_path: str, out: str, summary_out: str, source: str,
                       annotations_path: str | None = None) -> None:
    from . import relevance

    examples = read_parquet(examples_path, schemas.EXAMPLES)
    tables = infotabs.load_tables(read_parquet(tables_path, schemas.TABLES))
    found, summary = relevance.relevance_table(examples, tables, source, annotations_path)
    write_parquet(found, out, relevance.RELEVANCE)
    write_json(summary, summary_out)
    log.info("relevance (%s): %d of %d examples have relevant rows", summary["source"],
             summary["with_relevant_rows"], summary["examples"])


def ingest_external_probe(probe: str, split: str, folder: str, examples_path: str, out: str, coverage_out: str,
                          original_path: str | None = None) -> None:
    """`original_path`: the `original` probe's examples of the split, when it runs there: paired
    lines whose gold example it left out (its cap) are counted, as the paired drop cannot use them."""
    from . import external

    probe_examples, coverage = external.read_external_set(folder, probe, split, read_parquet(examples_path, schemas.EXAMPLES))
    if original_path:
        originals = set(read_parquet(original_path, schemas.PROBE_EXAMPLES)["orig_uid"].to_pylist())
        outside = sum(1 for uid, orig in zip(probe_examples["uid"].to_pylist(), probe_examples["orig_uid"].to_pylist())
                      if uid != orig and orig not in originals)
        if outside:
            coverage["skipped"][f"scored, but its gold example is outside `original`'s {len(originals)} (its cap): "
                                "not in the paired drop"] = outside
    write_parquet(probe_examples, out, schemas.PROBE_EXAMPLES)
    write_json({"split": split, "limit": None, **coverage}, coverage_out)
    log.info("%s: %d examples from %s (%s)", probe, probe_examples.num_rows, folder, coverage["skipped"] or "all paired")


@dataclass(frozen=True)
class ProbeInputs:
    """What a probe is applied to: a split's (capped) examples, its tables, and, for probes that
    read them, the hypothesis parses and which rows each hypothesis needs."""

    examples: Any  # pa.Table, schemas.EXAMPLES
    tables: Mapping[str, Any]  # table id -> Table
    docs: Mapping[str, Any] | None = None  # uid -> spaCy Doc
    relevance: Mapping[str, tuple[str, ...]] | None = None  # uid -> relevant row keys
    relevance_source: str | None = None


def read_probe_inputs(split: str, examples_path: str, tables_path: str, seed: int, limit: int | None = None,
                      parses_path: str | None = None, relevance_path: str | None = None) -> ProbeInputs:
    """The inputs of generate_probe (also read by `tabprobe show`)."""
    examples = perturb.select_examples(read_parquet(examples_path, schemas.EXAMPLES), limit, seed, split)
    tables = infotabs.load_tables(read_parquet(tables_path, schemas.TABLES))
    docs = None
    if parses_path:
        from . import parsing

        docs = parsing.read(parses_path, zip(examples["uid"].to_pylist(), examples["hypothesis"].to_pylist()))
        log.info("read %d hypothesis parses from %s", len(docs), parses_path)
    relevant = source = None
    if relevance_path:
        from . import relevance

        found = read_parquet(relevance_path, relevance.RELEVANCE)
        relevant = relevance.load_relevance(found)
        source = found["source"][0].as_py() if found.num_rows else "none"
    return ProbeInputs(examples, tables, docs, relevant, source)


def generate_probe(probe: str, split: str, examples_path: str, tables_path: str, out: str, coverage_out: str,
                   seed: int, limit: int | None = None, options: Mapping[str, Any] | None = None,
                   parses_path: str | None = None, relevance_path: str | None = None,
                   curation_paths: Sequence[str] = ()) -> None:
    from . import curation

    decisions = curation.read_decisions(curation_paths) if curation_paths else {}
    inputs = read_probe_inputs(split, examples_path, tables_path, seed, limit, parses_path, relevance_path)
    probe_examples, coverage = perturb.generate(probe, inputs.examples, inputs.tables, seed, options, inputs.docs,
                                                inputs.relevance, decisions, split)
    write_parquet(probe_examples, out, schemas.PROBE_EXAMPLES)
    write_json({"split": split, "limit": limit, **coverage,
                **({"relevance": inputs.relevance_source} if relevance_path else {})}, coverage_out)


def parse_hypotheses(examples_path: str, out: str, summary_out: str, model: str = "auto",
                     batch_size: int = 512, processes: int = 1) -> None:
    from . import parsing

    examples = read_parquet(examples_path, schemas.EXAMPLES)
    nlp = parsing.load_pipeline(model)
    start = time.monotonic()
    docs = parsing.parse(nlp, examples["hypothesis"].to_pylist(), examples["uid"].to_pylist(),
                         examples["table_id"].to_pylist(), batch_size=batch_size, n_process=processes)
    parsing.write(docs, out)
    write_json({"model": parsing.model_description(nlp), "components": nlp.pipe_names,
                "hypotheses": examples.num_rows, "seconds": round(time.monotonic() - start, 2)}, summary_out)


def init_model(base: str, out_dir: str, seed: int) -> None:
    out_dir = Path(out_dir)
    # Built in a temporary folder and renamed, so a killed job leaves no half-written checkpoint.
    with atomic_dir(out_dir) as tmp:
        models.init_classifier(base, tmp, seed)
    log.info("checkpoint written to %s", out_dir)


def train_model(train_path: str, train_tables_path: str, dev_path: str, dev_tables_path: str, out_dir: str,
                premise: str, train: Mapping[str, Any], seed: int, pair_order: str = "premise_first",
                threads: int = 1) -> None:
    import torch

    from . import training

    torch.set_num_threads(max(1, threads))
    settings = training.TrainSettings.from_config(train, seed, pair_order)
    # The resume state lives beside the output until the checkpoint is in place, so a killed job
    # (preempted, out of time, its node gone) continues where it stopped when re-run.
    resume_dir = training.resume_dir_for(out_dir)
    with atomic_dir(out_dir) as tmp:
        training.train(
            read_parquet(train_path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(train_tables_path, schemas.TABLES)),
            read_parquet(dev_path, schemas.EXAMPLES),
            infotabs.load_tables(read_parquet(dev_tables_path, schemas.TABLES)),
            premise,
            settings,
            tmp,
            resume_dir=resume_dir,
        )
    shutil.rmtree(resume_dir, ignore_errors=True)  # only once the checkpoint is in place
    log.info("checkpoint written to %s", out_dir)


def infer_nli(probe_path: str, checkpoint: str, out: str, stats_out: str, premise: str,
              label_map: Mapping[str, str] | None = None, batch_size: int = 32, max_length: int = 512,
              precision: str = "auto", pair_order: str = "premise_first", threads: int = 1,
              shard_size: int = 512) -> None:
    import torch

    torch.set_num_threads(max(1, threads))
    probe_examples = read_parquet(probe_path, schemas.PROBE_EXAMPLES)
    loaded = models.load_classifier(checkpoint, label_map)
    # Finished blocks are kept beside the output until it is written, so a killed job resumes.
    shard_dir = Path(out).with_name(f".{Path(out).stem}.shards")
    start = time.monotonic()
    predictions, stats = models.infer(probe_examples, loaded, premise, batch_size=batch_size,
                                      max_length=max_length, precision=precision, shard_dir=shard_dir,
                                      shard_size=shard_size, pair_order=pair_order)
    seconds = time.monotonic() - start
    write_parquet(predictions, out, schemas.PREDICTIONS)
    write_json(
        {
            **stats,
            "checkpoint": str(checkpoint),
            "premise": premise,
            "fingerprint": loaded.fingerprint,
            "meta": models.read_meta(checkpoint),
            "seconds": round(seconds, 2),
            "threads": threads,
        },
        stats_out,
    )
    shutil.rmtree(shard_dir, ignore_errors=True)  # only once both outputs are in place


def score_probe(probe: str, split: str, model: str, probe_path: str, predictions_path: str,
                original_predictions_path: str | None, out: str, settings: Mapping[str, Any], seed: int,
                externals: Mapping[str, str | None] | None = None, unverified_flips: str = "exclude",
                baseline_predictions_path: str | None = None) -> None:
    """`baseline_predictions_path`: the hypothesis-only model's `original` predictions on this
    split (probe `original` of a premise model only), for its paired gain over that baseline."""
    from .curation import scored

    register_externals(externals)
    table = scoring.score_probe(
        probe,
        scored(read_parquet(probe_path, schemas.PROBE_EXAMPLES), unverified_flips),
        read_parquet(predictions_path, schemas.PREDICTIONS),
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        scoring.ScoringSettings(seed=seed, **settings),
        model=model,
        split=split,
        baseline_predictions=(read_parquet(baseline_predictions_path, schemas.PREDICTIONS)
                              if baseline_predictions_path else None),
    )
    write_parquet(table, out, schemas.SCORES)


def score_pooled_column(table: str, column: str, split: str, model: str, probe_names: Sequence[str],
                        probe_paths: Sequence[str], prediction_paths: Sequence[str],
                        original_predictions_path: str | None, out: str, settings: Mapping[str, Any], seed: int,
                        hypothesis_only_predictions_path: str | None = None, unverified_flips: str = "exclude") -> None:
    from .curation import scored

    members = {
        name: (scored(read_parquet(probe_path, schemas.PROBE_EXAMPLES), unverified_flips),
               read_parquet(pred_path, schemas.PREDICTIONS))
        for name, probe_path, pred_path in zip(probe_names, probe_paths, prediction_paths, strict=True)
    }
    scores = scoring.score_pooled_column(
        table, column, members,
        read_parquet(original_predictions_path, schemas.PREDICTIONS) if original_predictions_path else None,
        scoring.ScoringSettings(seed=seed, **settings), model=model, split=split,
        hypothesis_only_predictions=(read_parquet(hypothesis_only_predictions_path, schemas.PREDICTIONS)
                                     if hypothesis_only_predictions_path else None),
    )
    write_parquet(scores, out, schemas.SCORES)


def collect_results(score_paths: Sequence[str], inference_stats: Sequence[str], coverage_paths: Sequence[str],
                    relevance_summaries: Sequence[str], parquet_out: str, csv_out: str, run_out: str,
                    config: Mapping[str, Any]) -> None:
    """Every score of the run into results/results.parquet and .csv, and results/run.json.
    `score_paths`: the per-probe, pooled, inoculation and controlled-variance score files;
    `inference_stats`: infer_nli's stats files (results/predictions/{model}/{probe}/{split}.json)."""
    from . import results

    models = results.model_facts(inference_stats)
    table = results.collect(score_paths, {m: info["premise"] for m, info in models.items()})
    results.write(table, parquet_out, csv_out)
    record = results.run_record(config, models, report.read_coverage(coverage_paths),
                                {Path(p).stem: json.loads(Path(p).read_text()) for p in relevance_summaries},
                                code_folder=Path(__file__).resolve().parent)
    results.write_run_record(record, run_out)
    log.info("results: %d scores of %d models in %s and %s; run record %s (commit %s)", table.height,
             table["model"].n_unique(), parquet_out, csv_out, run_out,
             (record["commit"] or {}).get("sha", "unknown: not a git checkout"))


def assemble_report(results_path: str, run_path: str, coverage_paths: Sequence[str],
                    html_out: str, markdown_out: str, figures_out: str, splits: Sequence[str], probes: Sequence[str],
                    data_source: str, seed: int, scoring_settings: Mapping[str, Any],
                    relevance_summaries: Sequence[str] = (), externals: Mapping[str, str | None] | None = None,
                    models: Sequence[str] = (), showcase: Mapping[str, Mapping] | None = None,
                    inoculation_summaries: Sequence[str] = (), inoculation_plan: Mapping[str, Any] | None = None,
                    variance_summaries: Sequence[str] = (), unverified_flips: str = "exclude") -> None:
    """`results_path` and `run_path`: collect_results's table and run record; `relevance_summaries`
    find_relevant_rows's (results/relevance/{split}.json); `showcase` maps a probe to the split
    and files its failing examples are drawn from (report_layout.showcase_inputs)."""
    from . import results

    register_externals(externals)
    recorded = json.loads(Path(run_path).read_text())["models"]
    # The config's order (the order the user listed their models in), then any the config no longer names.
    models_info = {m: recorded[m] for m in models if m in recorded} | recorded
    run = report.RunInfo(
        splits=list(splits), probes=list(probes), models=models_info, data_source=data_source, seed=seed,
        scoring=dict(scoring_settings), coverage=report.read_coverage(coverage_paths),
        relevance={Path(p).stem: json.loads(Path(p).read_text()) for p in relevance_summaries},
        unverified_flips=unverified_flips,
    )
    # Inoculation: results/inoculation/<model>/<experiment>.json; controlled variance:
    # results/variance/<model>.json (their scores are in the results table).
    run.inoculation = {Path(p).stem: json.loads(Path(p).read_text()) for p in inoculation_summaries}
    run.inoculation_plan = dict(inoculation_plan) if inoculation_plan else None
    run.variance = {Path(p).stem: json.loads(Path(p).read_text()) for p in variance_summaries}
    run.examples = report.load_examples(showcase or {}, list(models_info), seed,
                                        unverified_flips=unverified_flips)
    log.info("failing examples drawn for %d probes x models", len(run.examples))
    built = report.assemble(results.read(results_path), run)
    with atomic_dir(figures_out) as folder:
        for path, svg in sorted(built.figures.items()):
            (Path(folder) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / path).write_text(svg, encoding="utf-8")
    write_text(built.html, html_out)
    write_text(built.markdown, markdown_out)
    log.info("report: %s (%d kB), %s, %d figures in %s", html_out, len(built.html) // 1024, markdown_out,
             len(built.figures), figures_out)


def inoculate(checkpoint: str, challenge: Mapping[str, Mapping[str, str]], dev_path: str, dev_tables_path: str,
              out: str, experiment: str, table: str, size: int, sizes: Sequence[int], learning_rate: float,
              settings: Mapping[str, Any], model: Mapping[str, Any], seed: int, threads: int = 1,
              unverified_flips: str = "exclude") -> None:
    """Fine-tune `checkpoint` on `size` challenge examples from train (`challenge`: column ->
    probe -> its train examples) at one learning rate, with early stopping on dev (paper section 7)."""
    import torch

    from . import inoculation

    torch.set_num_threads(max(1, threads))

    pool = inoculation.challenge_records(read_challenge(challenge, unverified_flips), seed, "train", table)
    chosen = inoculation.nested_subsets(len(pool), sizes, seed, experiment)[size]
    if len(chosen) < size:
        log.warning("%s: only %d challenge examples from train, fewer than %d; inoculating on all of them",
                    experiment, len(chosen), size)
    dev = inoculation.dev_records(read_parquet(dev_path, schemas.EXAMPLES),
                                  infotabs.load_tables(read_parquet(dev_tables_path, schemas.TABLES)),
                                  settings["dev_examples"], seed)
    _fine_tune_into(out, checkpoint, [pool[i] for i in chosen], dev, learning_rate, settings, model, seed)


def _fine_tune_into(out: str, checkpoint: str, train: list[dict], dev: list[dict], learning_rate: float,
                    settings: Mapping[str, Any], model: Mapping[str, Any], seed: int) -> None:
    """inoculation.fine_tune with the rule's settings (epochs, patience, batch size) and the
    model's input settings, written atomically to `out` (inoculation and controlled variance)."""
    from . import inoculation

    run = inoculation.InoculationSettings(
        learning_rate=learning_rate, max_epochs=settings["max_epochs"], patience=settings["patience"],
        batch_size=settings["batch_size"], max_length=model["max_length"], precision=model["precision"],
        pair_order=model["pair_order"], seed=seed)
    with atomic_dir(out) as folder:
        inoculation.fine_tune(checkpoint, train, dev, model["premise"], run, folder, label_map=model.get("label_map"))


def select_inoculation(grid: Mapping[str, str], out: str) -> None:
    """Keep the inoculated checkpoint of the learning rate with the best dev accuracy (`grid`:
    learning rate -> checkpoint, in the config's order; the first of equals)."""
    from .models import read_meta

    dev = {lr: read_meta(path)["dev_accuracy"] for lr, path in grid.items()}
    best = max(dev, key=lambda lr: (dev[lr], -list(grid).index(lr)))
    with atomic_dir(out) as folder:
        shutil.copytree(grid[best], folder, dirs_exist_ok=True)
        write_json({"learning_rate": float(best), "dev_accuracy_by_learning_rate": {k: dev[k] for k in grid}},
                   Path(folder) / "inoculation_grid.json")
    log.info("best learning rate %s (dev accuracy %.2f%%) of %s", best, dev[best], dev)


def read_challenge(paths: Mapping[str, Mapping[str, str]], unverified_flips: str) -> dict[str, dict[str, Any]]:
    """column -> probe -> its examples whose labels may be used (tabprobe.curation.scored)."""
    from .curation import scored

    return {column: {probe: scored(read_parquet(path, schemas.PROBE_EXAMPLES), unverified_flips)
                     for probe, path in probes.items()} for column, probes in paths.items()}


def score_inoculation(experiment: str, table: str, models: Mapping[int, str], originals: Mapping[str, str],
                      members: Mapping[str, Mapping[str, str]], predictions: Mapping[str, Mapping[str, Mapping[str, str]]],
                      grids: Mapping[int, str], settings: Mapping[str, Any], seed: int, out: str, summary_out: str,
                      unverified_flips: str = "exclude") -> None:
    """Paper Tables 9-12 for one experiment: `models` size -> model name (0: before), `originals`
    split -> probe `original`'s examples, `members` column -> probe -> its challenge-split
    examples, `predictions` model -> probe -> split -> predictions file, `grids` size -> the
    chosen checkpoint (for the learning rate and epochs of each inoculation)."""
    import pyarrow as pa

    from . import inoculation
    from .config import inoculated_name
    from .models import read_meta

    read = {model: {(probe, split): dict(zip(t["uid"].to_pylist(), t["pred"].to_pylist()))
                    for probe, by_split in per_probe.items() for split, path in by_split.items()
                    for t in [read_parquet(path, schemas.PREDICTIONS)]}
            for model, per_probe in predictions.items()}
    scores = inoculation.score_experiment(
        experiment, table, models, {s: read_parquet(p, schemas.PROBE_EXAMPLES) for s, p in originals.items()},
        read_challenge(members, unverified_flips), read, scoring.ScoringSettings(**settings, seed=seed))
    # The model before inoculation is filed as size 0 of the experiment: its numbers here share
    # the samplings of the changes, unlike its own scores under its name.
    before = inoculated_name(models[0], experiment, 0)
    scores = scores.set_column(scores.schema.get_field_index("model"), "model",
                               pa.array([before if m == models[0] else m for m in scores["model"].to_pylist()], pa.string()))
    write_parquet(scores, out, schemas.SCORES)
    summary = {}
    for size, path in sorted(grids.items()):
        meta = read_meta(path)
        grid = json.loads((Path(path) / "inoculation_grid.json").read_text())
        summary[str(size)] = {"model": models[size], **grid, "best_epoch": meta["best_epoch"], "epochs_run": meta["epochs_run"],
                              "train_examples": meta["train_examples"], "dev_accuracy_before": meta["dev_accuracy_before"],
                              "max_epochs": meta["inoculation_settings"]["max_epochs"]}
    write_json({"experiment": experiment, "table": table, "model": models[0], "before": before, "sizes": summary}, summary_out)


def train_variance(checkpoint: str, train_path: str, train_tables_path: str, dev_path: str, dev_tables_path: str,
                   out: str, resample: int, settings: Mapping[str, Any], model: Mapping[str, Any], seed: int,
                   threads: int = 1) -> None:
    """Controlled variance, one repeat: fine-tune `checkpoint` on num_comparative examples from
    train tables with numbers in the training range, stopping early on such examples from dev."""
    import torch

    from . import variance

    torch.set_num_threads(max(1, threads))
    repeat_seed = variance.resample_seed(seed, resample)
    bounds = settings["train_range"]

    def examples(path, tables_path, count, split):
        found = variance.range_examples(read_parquet(path, schemas.EXAMPLES),
                                        infotabs.load_tables(read_parquet(tables_path, schemas.TABLES)), bounds, count,
                                        repeat_seed, split)
        log.info("%d %s examples with numbers in %s", found.num_rows, split, variance.range_label(bounds))
        return found.to_pylist()

    train = examples(train_path, train_tables_path, settings["train_examples"], "train")
    dev = examples(dev_path, dev_tables_path, settings["dev_examples"], "dev")
    _fine_tune_into(out, checkpoint, train, dev, settings["learning_rate"], settings, model, repeat_seed)


def score_variance(base: str, base_checkpoint: str, checkpoints: Mapping[int, str], test_path: str, test_tables_path: str,
                   out: str, summary_out: str, settings: Mapping[str, Any], model: Mapping[str, Any],
                   scoring_settings: Mapping[str, Any], seed: int, threads: int = 1) -> None:
    """Accuracy of each repeat's model, and of the model before, on num_comparative examples from
    alpha1 tables in every test range; scores filed as model "<base>.cv" (or the base), probe
    "num_comparative[<low>-<high>]", label "r<repeat>"; the summary holds the mean and spread over
    the repeats per range."""
    import numpy as np
    import pyarrow as pa
    import torch

    from . import variance

    torch.set_num_threads(max(1, threads))
    test_examples = read_parquet(test_path, schemas.EXAMPLES)
    test_tables = infotabs.load_tables(read_parquet(test_tables_path, schemas.TABLES))
    before = models.load_classifier(base_checkpoint, model.get("label_map"))
    rows, accuracy = [], {}
    for resample, path in sorted(checkpoints.items(), key=lambda item: int(item[0])):
        resample = int(resample)
        after = models.load_classifier(path, model.get("label_map"))
        repeat_seed = variance.resample_seed(seed, resample)
        for bounds in settings["test_ranges"]:
            label = variance.range_label(bounds)
            examples = variance.range_examples(test_examples, test_tables, bounds, settings["test_examples"],
                                               repeat_seed, "alpha1")
            expected = np.array(examples["expected"].to_pylist(), dtype=object)
            scorer = scoring.Scorer(len(expected), scoring.ScoringSettings(**scoring_settings, seed=seed), "variance",
                                    str(resample), label)
            for name, loaded in ((base, before), (f"{base}.cv", after)):
                predictions, _ = models.infer(examples, loaded, model["premise"], model["batch_size"], model["max_length"],
                                              model["precision"], pair_order=model["pair_order"])
                correct = (np.array(predictions["pred"].to_pylist(), dtype=object) == expected).astype(np.float64)
                stat = scorer.stat(correct, np.ones(len(correct)))
                rows.append({"model": name, "probe": f"num_comparative[{label}]", "split": "alpha1",
                             "statistic": "accuracy", "label": f"r{resample}", **stat})
                accuracy.setdefault((name, label), []).append(stat["mean"])
            log.info("repeat %d, range %s: %d examples; accuracy before %.2f, after %.2f", resample, label,
                     len(expected), accuracy[(base, label)][-1] or float("nan"), accuracy[(f"{base}.cv", label)][-1] or float("nan"))
    write_parquet(pa.Table.from_pylist(rows, schema=schemas.SCORES), out, schemas.SCORES)
    write_json({"train_range": variance.range_label(settings["train_range"]), "repeats": len(checkpoints),
                # A list, in config order (a JSON object's keys would be sorted).
                "ranges": [{"range": variance.range_label(b),
                            "before": variance.spread(accuracy[(base, variance.range_label(b))]),
                            "after": variance.spread(accuracy[(f"{base}.cv", variance.range_label(b))])}
                           for b in settings["test_ranges"]]}, summary_out)
