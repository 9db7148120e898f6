"""Controlled variance (diversify-your-datasets sections 3.5, 4.2 and 4.3): train on numbers from
one range, test on numbers from others, along a learning curve.

The `num_comparative` probe writes "The {key} of {title} is more than / less than / exactly N."
hypotheses, labelled by rule, with the cell's value V and N both drawn from a given range. A
model fine-tuned on such examples from train tables in one range (30-49, the paper's first) is
tested on examples from alpha1 tables in that range and in others (60-79, 200-299, and the
paper's 1000-9999). Each of `resamples` repeats draws new examples (new numbers, new training
subset) from its own seed; within a repeat the training sizes are nested (a smaller size is the
start of a larger one's draw, as the paper's curve grows one training set), so a step of the
curve is the effect of more examples, not of other ones. Size 0 is the model before fine-tuning,
scored on the same test examples. The report gives the mean and spread over the repeats per
range and size: a model that learned to compare numbers does as well on every range; one that
memorised number pairs does well only on its own, however many examples it sees.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from tabprobe import errors, schemas
from tabprobe.config.names import VARIANCE_PROBE, range_label, range_probe, trained_name
from tabprobe.config.names import VARIANCE_TEST_SPLIT as TEST_SPLIT
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Table
from tabprobe.inoculation.inoculate import fine_tune_into
from tabprobe.io import read_parquet, write_json, write_parquet
from tabprobe.models import classifiers as models
from tabprobe.models import predict
from tabprobe.scoring import probe_scores as scoring
from tabprobe.seeding import seeded_rng

# Gold examples handed to the probe at a time: about two in five of the paper dataset's tables hold a
# single-number cell, so a draw stops after a few chunks.
CHUNK = 256


def resample_seed(seed: int, resample: int) -> int:
    """The seed of one repeat: every example and number of that repeat derives from it."""
    return int(seeded_rng(seed, "controlled-variance", str(resample)).integers(2**31 - 1))


def range_examples(
    examples: pa.Table, tables: Mapping[str, Table], bounds: Sequence[int], count: int, seed: int, split: str
) -> pa.Table:
    """The first `count` num_comparative examples (`infobox.PROBE_EXAMPLES`) whose numbers lie in
    `bounds`, from a seeded order of the split's gold examples (fewer where the split holds fewer).
    Each gold example's perturbation depends on its uid and `seed` only, and the order on `seed`,
    `split` and `bounds`, so a smaller `count` gives the start of a larger one's draw: the
    training sizes of one repeat are nested."""
    from tabprobe.probes.generation import generate

    order = seeded_rng(seed, "controlled-variance-examples", split, range_label(bounds)).permutation(examples.num_rows)
    generated, taken = [], 0
    for start in range(0, len(order), CHUNK):
        if taken >= count:
            break
        chunk = examples.take(pa.array(order[start : start + CHUNK]))
        probe_examples, _ = generate(VARIANCE_PROBE, chunk, tables, seed, options={"range": list(bounds)})
        generated.append(probe_examples)
        taken += probe_examples.num_rows
    if not generated:
        from tabprobe.schemas import PROBE_EXAMPLES

        return PROBE_EXAMPLES.empty_table()
    return pa.concat_tables(generated).slice(0, count)


def spread(values: Sequence[float | None]) -> dict:
    """Mean, standard deviation, minimum and maximum over the repeats that have a value."""
    present = np.array([v for v in values if v is not None], dtype=np.float64)
    if not len(present):
        return {"mean": None, "std": None, "min": None, "max": None, "repeats": 0}
    return {
        "mean": float(present.mean()),
        "std": float(present.std(ddof=1)) if len(present) > 1 else None,
        "min": float(present.min()),
        "max": float(present.max()),
        "repeats": int(len(present)),
    }


def summarise(
    model: str,
    scores: Iterable[Mapping],
    train_range: Sequence[int],
    test_ranges: Sequence[Sequence[int]],
    sizes: Sequence[int],
    resamples: int,
) -> dict:
    """The experiment's summary from the accuracy rows (`schemas.SCORES`) of every (repeat, size)
    job: per test range (config order), the curve of mean and spread over the repeats at each
    training size (0 first: the model before), plus "before" (size 0) and "after" (the largest
    size) for a reader who wants the two ends."""
    sizes = sorted({0, *(int(s) for s in sizes)})
    accuracy: dict[tuple[str, str], list[float | None]] = {}
    for row in scores:
        if row["statistic"] == "accuracy":
            accuracy.setdefault((row["model"], row["probe"]), []).append(row["mean"])
    ranges = []
    for bounds in test_ranges:
        curve = [
            {"size": size, **spread(accuracy.get((trained_name(model, size), range_probe(bounds)), []))}
            for size in sizes
        ]
        ranges.append(
            {
                "range": range_label(bounds),
                "before": {k: v for k, v in curve[0].items() if k != "size"},
                "after": {k: v for k, v in curve[-1].items() if k != "size"},
                "curve": curve,
            }
        )
    return {
        "train_range": range_label(train_range),
        "repeats": resamples,
        "sizes": sizes,
        # A list, in config order (a JSON object's keys would be sorted).
        "ranges": ranges,
    }


log = logging.getLogger(__name__)


def collect_variance(
    base: str,
    score_paths: Mapping[int, Mapping[int, str]],
    out: str,
    summary_out: str,
    settings: Mapping[str, Any],
) -> None:
    """Rule collect_variance: the controlled-variance experiment's scores in one file, and its summary (the
    learning curve per test range, mean and spread over the repeats). `score_paths`: size -> repeat ->
    score_variance's file (size 0: the model before). The scores are concatenated by size, then repeat
    (the given paths' order does not matter)."""
    import pyarrow as pa

    tables = [
        read_parquet(score_paths[size][resample], schemas.SCORES)
        for size in sorted(score_paths, key=int)
        for resample in sorted(score_paths[size], key=int)
    ]
    scores = pa.concat_tables(tables)
    write_parquet(scores, out, schemas.SCORES)
    summary = summarise(
        base,
        scores.to_pylist(),
        settings["train_range"],
        settings["test_ranges"],
        settings["train_sizes"],
        settings["resamples"],
    )
    write_json(summary, summary_out)
    for ranges in summary["ranges"]:
        log.info(
            "range %s: mean accuracy by training size %s",
            ranges["range"],
            ", ".join(
                f"{p['size']}: {'–' if p['mean'] is None else format(p['mean'], '.2f')}" for p in ranges["curve"]
            ),
        )


def score_variance(
    base: str,
    checkpoint: str,
    resample: int,
    size: int,
    test_path: str,
    test_tables_path: str,
    out: str,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    scoring_settings: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Rule score_variance: accuracy per test range of `checkpoint` (the repeat's model fine-tuned on
    `size` examples; size 0: the model `base` before) on num_comparative examples from alpha1 tables in
    every test range, filed as model `trained_name(base, size)`, probe "num_comparative[<low>-<high>]",
    label "r<repeat>". The test examples and the samplings depend on the repeat and the range, never on
    the size, so every point of a repeat's curve is scored on the same examples."""
    import numpy as np
    import pyarrow as pa
    import torch

    torch.set_num_threads(max(1, threads))
    test_examples = read_parquet(test_path, schemas.EXAMPLES)
    test_tables = infobox.load_tables(read_parquet(test_tables_path, infobox.TABLES))
    loaded = models.load_classifier(checkpoint, model.get("label_map"))
    repeat_seed = resample_seed(seed, resample)
    name = trained_name(base, size)
    rows = []
    for bounds in settings["test_ranges"]:
        label = range_label(bounds)
        examples = range_examples(
            test_examples, test_tables, bounds, settings["test_examples"], repeat_seed, TEST_SPLIT
        )
        expected = np.array(examples["expected"].to_pylist(), dtype=object)
        scorer = scoring.Scorer(
            len(expected), scoring.ScoringSettings(**scoring_settings, seed=seed), "variance", str(resample), label
        )
        predictions, _ = models.infer(
            examples,
            loaded,
            model["premise"],
            model["batch_size"],
            model["max_length"],
            model["precision"],
            pair_order=model["pair_order"],
            batch_tokens=predict.batch_tokens_on(loaded, model["gpu_batch_tokens"]),
            premise_selection=model.get("premise_selection"),
        )
        correct = (np.array(predictions["pred"].to_pylist(), dtype=object) == expected).astype(np.float64)
        stat = scorer.stat(correct, np.ones(len(correct)))
        rows.append(
            {
                "model": name,
                "probe": range_probe(label),
                "split": TEST_SPLIT,
                "statistic": "accuracy",
                "label": f"r{resample}",
                **stat,
            }
        )
        log.info(
            "repeat %d, size %d, range %s: %d examples, accuracy %s",
            resample,
            size,
            label,
            len(expected),
            "–" if stat["mean"] is None else f"{stat['mean']:.2f}",
        )
    write_parquet(pa.Table.from_pylist(rows, schema=schemas.SCORES), out, schemas.SCORES)


def train_variance(
    checkpoint: str,
    train_path: str,
    train_tables_path: str,
    dev_path: str,
    dev_tables_path: str,
    out: str,
    resample: int,
    size: int,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Rule train_variance: one (repeat, training size) of the controlled-variance fine-tuning:
    `checkpoint` fine-tuned on the first `size` num_comparative examples of the repeat's draw from train tables
    with numbers in the training range (nested: a smaller size trains on the start of a larger one's
    examples), stopping early on such examples from dev (the same for every size of the repeat)."""
    import torch

    torch.set_num_threads(max(1, threads))
    repeat_seed = resample_seed(seed, resample)
    bounds = settings["train_range"]

    def examples(path, tables_path, count, split):
        found = range_examples(
            read_parquet(path, schemas.EXAMPLES),
            infobox.load_tables(read_parquet(tables_path, infobox.TABLES)),
            bounds,
            count,
            repeat_seed,
            split,
        )
        log.info("%d %s examples with numbers in %s", found.num_rows, split, range_label(bounds))
        return found

    train = examples(train_path, train_tables_path, size, "train")
    if train.num_rows < size:
        # A point of the learning curve must train on what its size says.
        raise errors.TabprobeError(
            f"config key controlled_variance.train_sizes: {size}: {train_path} yields only {train.num_rows} "
            f"num_comparative examples with numbers in {range_label(bounds)}; use sizes up to "
            f"{train.num_rows}"
        )
    dev = examples(dev_path, dev_tables_path, settings["dev_examples"], "dev")
    fine_tune_into(
        out, checkpoint, train.to_pylist(), dev.to_pylist(), settings["learning_rate"], settings, model, repeat_seed
    )
