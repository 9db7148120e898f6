"""Rule score_variance: accuracy per test range before and after each repeat."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .. import infotabs, models, predict, schemas, scoring, variance
from ..io import read_parquet, write_json, write_parquet

log = logging.getLogger(__name__)


def score_variance(
    base: str,
    base_checkpoint: str,
    checkpoints: Mapping[int, str],
    test_path: str,
    test_tables_path: str,
    out: str,
    summary_out: str,
    settings: Mapping[str, Any],
    model: Mapping[str, Any],
    scoring_settings: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Accuracy of each repeat's model, and of the model before, on num_comparative examples from
    alpha1 tables in every test range; scores filed as model "<base>.cv" (or the base), probe
    "num_comparative[<low>-<high>]", label "r<repeat>"; the summary holds the mean and spread over
    the repeats per range."""
    import numpy as np
    import pyarrow as pa
    import torch

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
            examples = variance.range_examples(
                test_examples, test_tables, bounds, settings["test_examples"], repeat_seed, variance.TEST_SPLIT
            )
            expected = np.array(examples["expected"].to_pylist(), dtype=object)
            scorer = scoring.Scorer(
                len(expected), scoring.ScoringSettings(**scoring_settings, seed=seed), "variance", str(resample), label
            )
            for name, loaded in ((base, before), (f"{base}.cv", after)):
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
                        "probe": f"num_comparative[{label}]",
                        "split": variance.TEST_SPLIT,
                        "statistic": "accuracy",
                        "label": f"r{resample}",
                        **stat,
                    }
                )
                accuracy.setdefault((name, label), []).append(stat["mean"])
            log.info(
                "repeat %d, range %s: %d examples; accuracy before %.2f, after %.2f",
                resample,
                label,
                len(expected),
                accuracy[(base, label)][-1] or float("nan"),
                accuracy[(f"{base}.cv", label)][-1] or float("nan"),
            )
    write_parquet(pa.Table.from_pylist(rows, schema=schemas.SCORES), out, schemas.SCORES)
    write_json(
        {
            "train_range": variance.range_label(settings["train_range"]),
            "repeats": len(checkpoints),
            # A list, in config order (a JSON object's keys would be sorted).
            "ranges": [
                {
                    "range": variance.range_label(b),
                    "before": variance.spread(accuracy[(base, variance.range_label(b))]),
                    "after": variance.spread(accuracy[(f"{base}.cv", variance.range_label(b))]),
                }
                for b in settings["test_ranges"]
            ],
        },
        summary_out,
    )
