"""Which probe examples a model failed, and a seeded handful of them to show.

What counts as a failure follows how the probe is judged:
- transition rules: the prediction moved in a way the rule forbids (E -> C after deleting a row);
- an expected label: right on the unperturbed example, wrong after the change (a flip the
  change caused); an external line with no original: wrong;
- premise controls: still right without the evidence (the gold label was reached from the
  hypothesis alone, the artifact these controls expose);
- evidence selection: deleting a row the hypothesis does not need moved the prediction (the
  model relies on the wrong row).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from . import LABEL_NAMES
from .probes import Probe
from .seeding import seeded_rng
from .transitions import RULES


@dataclass(frozen=True)
class Failure:
    row: Mapping  # the probe example (`schemas.PROBE_EXAMPLES` record)
    reason: str


@dataclass(frozen=True)
class Failures:
    what: str  # what counts as a failure for this probe, in words
    shown: list[Failure]
    failed: int
    judged: int  # probe examples that could be judged (those with the predictions they need)


def what_fails(probe: Probe) -> str:
    if probe.judged_by == "transitions":
        return "the prediction moved in a way the transition rule forbids"
    if probe.judged_by == "evidence":
        return "deleting a row the hypothesis does not need changed the prediction"
    if probe.family == "premise_control":
        return "still predicted the gold label without the evidence"
    return "right on the unperturbed example, wrong after the change"


def _failure_reason(probe: Probe, row: Mapping, before: str | None, after: str) -> str | None:
    """Why this probe example is a failure, or None when it is not (or cannot be judged)."""
    if probe.judged_by == "transitions":
        if before is None:
            return None
        rule = RULES[probe.transition_rule]
        if rule.is_valid(before, after):
            return None
        allowed = ", ".join(LABEL_NAMES[lab] for lab in "ENC" if lab in rule.allowed[before])
        return f"{LABEL_NAMES[before]} before, {LABEL_NAMES[after]} after; allowed after {LABEL_NAMES[before]}: {allowed}"
    if probe.judged_by == "evidence":
        if before is None or before == after or json.loads(row["provenance"]).get("relevant", False):
            return None
        return f"{LABEL_NAMES[before]} before, {LABEL_NAMES[after]} after deleting a row the hypothesis does not need"
    if probe.family == "premise_control":
        if after != row["expected"]:
            return None
        return f"{LABEL_NAMES[after]} (the gold label) without the evidence"
    if after == row["expected"]:
        return None
    if before is None:
        return f"{LABEL_NAMES[after]}, expected {LABEL_NAMES[row['expected']]} (no original to compare with)"
    if before != row["label"]:
        return None  # already wrong before the change: not a failure the change caused
    return f"{LABEL_NAMES[before]} (right) before, {LABEL_NAMES[after]} after; expected {LABEL_NAMES[row['expected']]}"


def find_failures(probe: Probe, rows: Sequence[Mapping], predictions: Mapping[str, str],
                  original_predictions: Mapping[str, str], n: int, seed: int, *names: str) -> Failures:
    """The failures among `rows` (probe examples), and `n` of them chosen with a generator seeded
    by `seed` and `names` (e.g. model and split), shown in file order."""
    failed: list[Failure] = []
    judged = 0
    for row in rows:
        after = predictions.get(row["uid"])
        if after is None:
            continue
        before = original_predictions.get(row["orig_uid"])
        if probe.judged_by in ("transitions", "evidence") and before is None:
            continue
        judged += 1
        reason = _failure_reason(probe, row, before, after)
        if reason:
            failed.append(Failure(row, reason))
    rng = seeded_rng(seed, "failing-examples", probe.name, *names)
    keep = np.sort(rng.permutation(len(failed))[:n]) if failed else []
    return Failures(what_fails(probe), [failed[i] for i in keep], len(failed), judged)
