"""Rule score_variance: accuracy per test range of one (repeat, training size)'s model."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .. import infotabs, models, predict, schemas, scoring, variance
from ..io import read_parquet, write_parquet

log = logging.getLogger(__name__)


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
    """Accuracy of `checkpoint` (the repeat's model fine-tuned on `size` examples; size 0: the
    model `base` before) on num_comparative examples from alpha1 tables in every test range,
    filed as model `variance.trained_name(base, size)`, probe "num_comparative[<low>-<high>]",
    label "r<repeat>". The test examples and the samplings depend on the repeat and the range,
    never on the size, so every point of a repeat's curve is scored on the same examples."""
    import numpy as np
    import pyarrow as pa
    import torch

    torch.set_num_threads(max(1, threads))
    test_examples = read_parquet(test_path, schemas.EXAMPLES)
    test_tables = infotabs.load_tables(read_parquet(test_tables_path, schemas.TABLES))
    loaded = models.load_classifier(checkpoint, model.get("label_map"))
    repeat_seed = variance.resample_seed(seed, resample)
    name = variance.trained_name(base, size)
    rows = []
    for bounds in settings["test_ranges"]:
        label = variance.range_label(bounds)
        examples = variance.range_examples(
            test_examples, test_tables, bounds, settings["test_examples"], repeat_seed, variance.TEST_SPLIT
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
        )
        correct = (np.array(predictions["pred"].to_pylist(), dtype=object) == expected).astype(np.float64)
        stat = scorer.stat(correct, np.ones(len(correct)))
        rows.append(
            {
                "model": name,
                "probe": variance.range_probe(label),
                "split": variance.TEST_SPLIT,
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
