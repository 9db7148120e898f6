"""Controlled variance (diversify-your-datasets section 3.5 and 4.3): train on numbers from one
range, test on numbers from others.

The `num_comparative` probe writes "The {key} of {title} is more than / less than / exactly N."
hypotheses, labelled by rule, with the cell's value V and N both drawn from a given range. A
model fine-tuned on such examples from train tables in one range (30-49, the paper's first) is
tested on examples from alpha1 tables in that range and in others (60-79, 200-299). Each of
`resamples` repeats draws new examples (new numbers, new training subset) from its own seed,
and the report gives the mean and spread over the repeats: a model that learned to compare
numbers does as well on every range; one that memorised number pairs does well only on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from .seeding import seeded_rng
from .table import Table

# Where the ranges are tested (diversify-your-datasets tests on held-out tables; alpha1 is ours).
TEST_SPLIT = "alpha1"


def range_label(bounds: Sequence[int]) -> str:
    return f"{bounds[0]}-{bounds[1]}"


def resample_seed(seed: int, resample: int) -> int:
    """The seed of one repeat: every example and number of that repeat derives from it."""
    return int(seeded_rng(seed, "controlled-variance", str(resample)).integers(2**31 - 1))


def range_examples(
    examples: pa.Table, tables: Mapping[str, Table], bounds: Sequence[int], count: int, seed: int, split: str
) -> pa.Table:
    """`count` num_comparative examples (`schemas.PROBE_EXAMPLES`) whose numbers lie in `bounds`,
    from a seeded draw of the split's gold examples (fewer where the split has too few tables
    with a numeric cell)."""
    from .perturb import generate

    order = seeded_rng(seed, "controlled-variance-examples", split, range_label(bounds)).permutation(examples.num_rows)
    generated, taken = [], 0
    # Roughly two in five InfoTabS tables hold a single-number cell: draw gold examples in
    # chunks until there are enough perturbations.
    for start in range(0, len(order), max(4 * count, 64)):
        chunk = examples.take(pa.array(np.sort(order[start : start + max(4 * count, 64)])))
        probe_examples, _ = generate("num_comparative", chunk, tables, seed, options={"range": list(bounds)})
        generated.append(probe_examples)
        taken += probe_examples.num_rows
        if taken >= count:
            break
    found = pa.concat_tables(generated) if generated else None
    return found.slice(0, count) if found is not None else found


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
