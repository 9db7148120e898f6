"""The names a config gives probes and models.

Probe and model names become folder names under results/ and resources/models/, and the
workflow's wildcards: no path characters, no leading dot. The schema's propertyNames and the
rules' wildcard constraints use these same patterns (tests/test_bad_input.py checks both).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PROBE_NAME = r"[A-Za-z0-9][A-Za-z0-9_]*"
MODEL_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
# What a check says of a name the patterns refuse, by the config key the name is under.
NAME_RULES = {
    "probes": "a probe name may hold only letters, digits and _, starting with a letter or digit",
    "models": "a model name may hold only letters, digits, _, . and -, starting with a letter or digit",
}


# The controlled-variance experiment's names (inoculation/variance.py), here because the rules and
# the report name its models and ranges without running it.
# The probe whose examples the experiment fine-tunes and tests on: its hypotheses compare a cell's
# number with one drawn from a given range.
VARIANCE_PROBE = "num_comparative"
# Where the ranges are tested (diversify-your-datasets tests on held-out tables; alpha1 is ours).
VARIANCE_TEST_SPLIT = "alpha1"


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
    return f"{VARIANCE_PROBE}[{bounds if isinstance(bounds, str) else range_label(bounds)}]"


# Inoculation's challenge test set (inoculation/; paper Tables 10 and 12): alpha1 without NEUTRAL.
# The tables also report train ("Train Set (w/o NEUTRAL)"), the split the challenge examples are drawn from
# (inoculation's `train_rows`).
CHALLENGE_SPLIT = "alpha1"
