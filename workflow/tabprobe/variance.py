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

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .seeding import seeded_rng
from .table import Table

# Where the ranges are tested (diversify-your-datasets tests on held-out tables; alpha1 is ours).
TEST_SPLIT = "alpha1"
# Gold examples handed to the probe at a time: about two in five InfoTabS tables hold a
# single-number cell, so a draw stops after a few chunks.
CHUNK = 256


def range_label(bounds: Sequence[int]) -> str:
    return f"{bounds[0]}-{bounds[1]}"


def trained_name(model: str, size: int) -> str:
    """The name a fine-tuned model's scores are filed under; size 0 is the model itself."""
    return model if int(size) == 0 else f"{model}.cv-{int(size)}"


def is_trained_name(name: str) -> bool:
    """Whether `name` is a controlled-variance model's (`trained_name`), scored on number ranges only."""
    return re.search(r"\.cv-\d+$", name) is not None


def range_probe(bounds: Sequence[int] | str) -> str:
    """The probe name of a test range's scores: "num_comparative[30-49]"."""
    return f"num_comparative[{bounds if isinstance(bounds, str) else range_label(bounds)}]"


def resample_seed(seed: int, resample: int) -> int:
    """The seed of one repeat: every example and number of that repeat derives from it."""
    return int(seeded_rng(seed, "controlled-variance", str(resample)).integers(2**31 - 1))


def range_examples(
    examples: pa.Table, tables: Mapping[str, Table], bounds: Sequence[int], count: int, seed: int, split: str
) -> pa.Table:
    """The first `count` num_comparative examples (`schemas.PROBE_EXAMPLES`) whose numbers lie in
    `bounds`, from a seeded order of the split's gold examples (fewer where the split holds fewer).
    Each gold example's perturbation depends on its uid and `seed` only, and the order on `seed`,
    `split` and `bounds`, so a smaller `count` gives the start of a larger one's draw: the
    training sizes of one repeat are nested."""
    from .perturb import generate

    order = seeded_rng(seed, "controlled-variance-examples", split, range_label(bounds)).permutation(examples.num_rows)
    generated, taken = [], 0
    for start in range(0, len(order), CHUNK):
        if taken >= count:
            break
        chunk = examples.take(pa.array(order[start : start + CHUNK]))
        probe_examples, _ = generate("num_comparative", chunk, tables, seed, options={"range": list(bounds)})
        generated.append(probe_examples)
        taken += probe_examples.num_rows
    if not generated:
        from .schemas import PROBE_EXAMPLES

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
