"""Which probe examples a model failed, and a seeded handful of them to show.

What counts as a failure follows how the probe is judged:
- transition rules: the prediction moved in a way the rule forbids (E -> C after deleting a row);
- an expected label: right on the unperturbed example, wrong after the change (a flip the
  change caused); an external line with no original is scored apart, not a failure;
- premise controls: still right without the evidence (the gold label was reached from the
  hypothesis alone, the artifact these controls expose);
- evidence selection: deleting a row the hypothesis does not need moved the prediction (the
  model relies on the wrong row).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabprobe import LABELS, schemas
from tabprobe.data.datasets import Dataset, all_datasets, get_dataset, paper_dataset
from tabprobe.probes import Probe
from tabprobe.seeding import seeded_rng


@dataclass(frozen=True)
class Failure:
    row: Mapping  # the probe example (a record of its table type's `probe_examples`)
    reason: str


@dataclass(frozen=True)
class Failures:
    what: str  # what counts as a failure for this probe, in words
    shown: list[Failure]
    failed: int
    judged: int  # probe examples that could be judged (those with the predictions they need)
    # Lines of an external set paired with no gold example: no "before", so scored apart (how
    # many, how many the model got right), never counted as failures the change caused.
    unpaired: int = 0
    unpaired_right: int = 0
    # Paired examples whose original has no prediction (outside the baseline probe's cap): not judged.
    no_original: int = 0
    baseline: str = ""  # the unperturbed probe of the probe's dataset, whose predictions are the "before"

    def caption(self) -> str:
        """The counts in words: failures of the judged examples, then what was left out and why."""
        share = f" ({100 * self.failed / self.judged:.1f}%)" if self.judged else ""
        text = f"{self.failed} of {self.judged}{share}"
        if self.unpaired:
            text += (
                f"; {self.unpaired} line(s) paired with no gold example, scored apart: "
                f"{self.unpaired_right} right ({100 * self.unpaired_right / self.unpaired:.1f}%)"
            )
        if self.no_original:
            text += f"; {self.no_original} without a prediction on their original (outside `{self.baseline}`'s cap), not judged"
        return text


def judgement(probe: Probe, expected: str | None) -> str:
    """How one example of the probe is judged, in words."""
    if probe.judged_by == "transitions":
        return f"judged by the transition rule {probe.transition_rule.name}"
    if probe.judged_by == "evidence":
        return "judged by its evidence (does deleting this row move the prediction?)"
    return f"expected {label_names(probe)[expected]}" if expected else "expected label"


def what_fails(probe: Probe) -> str:
    if probe.judged_by == "transitions":
        return "the prediction moved in a way the transition rule forbids"
    if probe.judged_by == "evidence":
        return "deleting a row the hypothesis does not need changed the prediction"
    if probe.family == "premise_control":
        return "still predicted the gold label without the evidence"
    return "right on the unperturbed example, wrong after the change"


# A served model's answer that gave no label (schemas.UNPARSED) is named as such.
UNPARSED_NAME = "no label (unparsed answer)"


def dataset_of(probe: Probe) -> Dataset:
    """The dataset whose examples the probe's are: the one that registers it; an external set's is
    the paper dataset's (it is given in that format, and registers under no dataset)."""
    return get_dataset(probe.datasets[0]) if probe.datasets else paper_dataset()


def label_names(probe: Probe) -> Mapping[str, str]:
    """The names of the labels of the probe's dataset (its `Dataset.label_names`: ENTAIL, NEUTRAL,
    CONTRADICT on the paper's; ENTAILED, REFUTED on a two-label one), and a served model's unparsed answer."""

    return {**dataset_of(probe).label_names, schemas.UNPARSED: UNPARSED_NAME}


def _failure_reason(probe: Probe, row: Mapping, before: str | None, after: str) -> str | None:
    """Why this probe example is a failure, or None when it is not (or cannot be judged: an
    unparsed answer is no transition, as in the scores)."""
    if probe.judged_by in ("transitions", "evidence") and schemas.UNPARSED in (before, after):
        return None
    names = label_names(probe)
    if probe.judged_by == "transitions":
        rule = probe.transition_rule
        if before is None or rule.is_valid(before, after):
            return None
        return f"{names[before]} before, {names[after]} after; allowed after {names[before]}: {rule.allowed_after(before, names)}"
    if probe.judged_by == "evidence":
        if before is None or before == after or json.loads(row["provenance"]).get("relevant", False):
            return None
        return f"{names[before]} before, {names[after]} after deleting a row the hypothesis does not need"
    if probe.family == "premise_control":
        if after != row["expected"]:
            return None
        return f"{names[after]} (the gold label) without the evidence"
    if after == row["expected"]:
        return None
    if _unperturbed(probe, row):
        return f"{names[after]}, expected {names[row['expected']]}"
    if before != row["label"]:
        return None  # already wrong before the change: not a failure the change caused
    return f"{names[before]} (right) before, {names[after]} after; expected {names[row['expected']]}"


def _is_baseline(probe: Probe) -> bool:
    """Whether the probe is a dataset's baseline (`Dataset.baseline_probe`): its examples are unperturbed."""
    return any(d.baseline_probe == probe.name for d in all_datasets())


def _baseline_of(probe: Probe) -> str:
    """The baseline probe of the probe's dataset."""
    return dataset_of(probe).baseline_probe


def _unperturbed(probe: Probe, row: Mapping) -> bool:
    """Whether the row is an unperturbed example, its own "before": one of the paper dataset's
    baseline (whose uid is its gold example's) or of another dataset's (whose uid names the probe)."""
    return row["uid"] == row["orig_uid"] or _is_baseline(probe)


def find_failures(
    probe: Probe,
    rows: Sequence[Mapping],
    predictions: Mapping[str, str],
    original_predictions: Mapping[str, str],
    n: int,
    seed: int,
    *names: str,
) -> Failures:
    """The failures among `rows` (probe examples), and `n` of them chosen with a generator seeded
    by `seed` and `names` (e.g. model and split), shown in file order."""
    failed: list[Failure] = []
    judged = unpaired = unpaired_right = no_original = 0
    for row in rows:
        after = predictions.get(row["uid"])
        if after is None:
            continue
        if row["uid"] == row["orig_uid"] and not _is_baseline(probe) and probe.judged_by == "expected":
            unpaired += 1  # an external line made from no gold example
            unpaired_right += after == row["expected"]
            continue
        before = original_predictions.get(row["orig_uid"])
        # Judged against the prediction before the change, so without one it cannot be judged;
        # a row that is its own original needs none.
        if before is None and not _unperturbed(probe, row) and probe.family != "premise_control":
            no_original += 1
            continue
        judged += 1
        reason = _failure_reason(probe, row, before, after)
        if reason:
            failed.append(Failure(row, reason))
    rng = seeded_rng(seed, "failing-examples", probe.name, *names)
    keep = np.sort(rng.permutation(len(failed))[:n]) if failed else []
    return Failures(
        what_fails(probe),
        [failed[i] for i in keep],
        len(failed),
        judged,
        unpaired,
        unpaired_right,
        no_original,
        _baseline_of(probe),
    )


def _read_predictions(path, labels: Sequence[str] = LABELS, key: str = "uid") -> dict[str, str]:
    """`key` (the probe example's uid, or for the unperturbed probe's predictions the gold
    example's, `orig_uid`: a baseline whose uids name the probe, as another dataset's may, pairs too) -> prediction,
    read in terms of the probe's dataset's `labels`: on a two-label dataset a three-way
    model's NEUTRAL is REFUTED, as its scores read it."""
    from tabprobe import schemas
    from tabprobe.io import read_parquet
    from tabprobe.scoring.probe_scores import NOT_ENTAILED

    table = read_parquet(path, schemas.PREDICTIONS)
    neutral = NOT_ENTAILED if "N" not in labels else "N"
    return {
        uid: neutral if pred == "N" else pred for uid, pred in zip(table[key].to_pylist(), table["pred"].to_pylist())
    }


def failing_examples(
    files: Mapping[str, str | Path],
    probe: Probe,
    model: str,
    split: str,
    n: int,
    seed: int,
    split_data: tuple[dict, dict] | None = None,
    unverified_flips: str = "exclude",
):
    """The failures of `model` on `probe` and `n` of them as ExampleChanges (with reason and
    predictions), from the workflow's files as `report_layout.showcase_inputs` names them; the
    original predictions are optional. The report and `tabprobe show --model` both use this, so
    they show the same examples. `split_data` ({uid: gold example}, {table id: Table}) saves
    reading the split again for each probe. Label flips nobody checked are judged only where
    `unverified_flips` counts them in the scores too (tabprobe.probes.curation)."""
    from dataclasses import replace

    from tabprobe import schemas
    from tabprobe.io import read_parquet
    from tabprobe.probes import diff
    from tabprobe.probes.curation import scored

    table_type = dataset_of(probe).table_type
    rows = scored(read_parquet(files["probe"], table_type.probe_examples), unverified_flips).to_pylist()
    labels = dataset_of(probe).labels
    predictions = _read_predictions(files[f"predictions:{model}"], labels)
    original = files.get(f"original:{model}")
    before = _read_predictions(original, labels, "orig_uid") if original and Path(original).exists() else {}
    found = find_failures(probe, rows, predictions, before, n, seed, model, split)
    if split_data is None:
        examples = read_parquet(files["examples"], schemas.EXAMPLES).to_pylist()
        split_data = (
            {e["uid"]: e for e in examples},
            table_type.load_tables(read_parquet(files["tables"], table_type.tables)),
        )
    changes = diff.example_changes([f.row for f in found.shown], *split_data, predictions, before)
    return found, [replace(c, reason=f.reason) for c, f in zip(changes, found.shown)]
