"""Two models side by side on the scorecard (`tabprobe compare`): two models of one run, or one
model in two runs (a model against its fine-tuned self, say).

Each side's numbers come from its run's results table. Where both sides were scored on the same
examples (the same uid and the same example content: hypothesis, table, expected label), the
difference is paired: per example, one side's outcome minus the other's, over samplings and
bootstrap resamples of the shared examples, as the run scores every probe. Statistics whose
denominator depends on the model's own predictions (a share among the predictions that had to
move, say) are shown side by side only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabprobe import layout, schemas
from tabprobe.config.settings import baseline_probe, probe_dataset
from tabprobe.data.datasets import all_datasets, get_dataset
from tabprobe.errors import TabprobeError
from tabprobe.io import read_json, read_parquet
from tabprobe.probes.curation import scored
from tabprobe.report import power, scorecard
from tabprobe.scoring import results
from tabprobe.scoring.probe_scores import Scorer, ScoringSettings, as_two_labels


class CompareError(TabprobeError):
    """A side cannot be compared (no results table, an unknown model)."""


@dataclass(frozen=True)
class Side:
    results_dir: Path  # a run's results/ folder
    model: str
    scores: results.Index  # its results table

    @property
    def name(self) -> str:
        return f"{self.model} ({self.results_dir})"


def load_side(results_dir: str | Path, model: str) -> Side:
    folder = Path(results_dir)
    path = Path(layout.results_table(folder))
    if not path.is_file():
        raise CompareError(f"{path} not found: run the workflow there first (snakemake --cores all), which writes it")
    scores = results.Index(results.read(path))
    if model not in scores.models():
        raise CompareError(f"model {model!r} has no scores in {path}; its models: {', '.join(scores.models())}")
    # Read as its report reads it: a probe below its minimum n decides nothing here either (report.power).
    run_json = Path(layout.run_record(folder))
    minimums = power.Minimums.of_record(read_json(run_json).get("min_examples") if run_json.is_file() else None)
    return Side(folder, model, power.decided(scores, power.power_of(scores, minimums)))


def scoring_settings(results_dir: str | Path) -> ScoringSettings:
    """The run's own scoring settings and seed (from its run.json)."""
    config = results.config_of(layout.run_record(results_dir))
    return ScoringSettings(seed=config["seed"], **config["scoring"])


def _content_keys(examples: list[dict]) -> list[str]:
    """Per example, its uid and a digest of everything the model was shown and judged by."""
    keys = []
    for e in examples:
        content = json.dumps(
            {k: e.get(k) for k in ("hypothesis", "table", "expected", "label", "table_id")},
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        keys.append(f"{e['uid']}|{hashlib.sha256(content.encode()).hexdigest()[:16]}")
    return keys


def _predictions(
    folder: Path, model: str, probe: str, split: str, labels: Sequence[str], key: str = "uid"
) -> dict[str, str] | None:
    """`key` (uid, or orig_uid for the unperturbed probe's, which the probe examples pair with) ->
    prediction, a NEUTRAL read as REFUTED where `labels` have no N."""
    path = Path(layout.predictions(model, probe, split, folder))
    if not path.is_file():
        return None
    table = read_parquet(path, schemas.PREDICTIONS)
    pred = np.array(table["pred"].to_pylist(), dtype=object)
    return dict(zip(table[key].to_pylist(), as_two_labels(pred, tuple(labels))[0].tolist()))


def outcomes(side: Side, probe: str, statistic: str, split: str) -> dict[str, float] | None:
    """Per example (content key), the side's outcome for a statistic that is a mean of per-example
    values: 100 x correct for `accuracy`; 100 x (correct before the edit - correct after) for
    `accuracy_drop`, before being the probe's dataset's baseline probe (`Dataset.baseline_probe`). On a
    two-label dataset a NEUTRAL answer is REFUTED, as the scores read it. None where the statistic
    is not of that kind or the files are missing."""
    if statistic not in ("accuracy", "accuracy_drop"):
        return None
    probe_path = Path(layout.probe_examples(probe, split, side.results_dir))
    labels = get_dataset(probe_dataset(probe)).labels
    after = _predictions(side.results_dir, side.model, probe, split, labels)
    if not probe_path.is_file() or after is None:
        return None
    # The examples the run scored: label flips nobody checked are out unless its config counts them.
    unverified = results.config_of(layout.run_record(side.results_dir)).get("unverified_flips", "exclude")
    examples = scored(
        read_parquet(probe_path, get_dataset(probe_dataset(probe)).table_type.probe_examples), unverified
    ).to_pylist()
    correct = np.array([after.get(e["uid"]) == e["expected"] for e in examples], dtype=np.float64)
    present = np.array([e["uid"] in after for e in examples])
    if statistic == "accuracy_drop":
        before = _predictions(side.results_dir, side.model, baseline_probe(probe), split, labels, "orig_uid")
        if before is None:
            return None
        present &= np.array([e["orig_uid"] in before for e in examples])
        correct = np.array([before.get(e["orig_uid"]) == e["label"] for e in examples], dtype=np.float64) - correct
    keys = _content_keys(examples)
    return {k: 100.0 * v for k, v, p in zip(keys, correct, present) if p}


@dataclass(frozen=True)
class Comparison:
    measure: scorecard.Measure
    split: str | None
    left: dict | None  # results rows
    right: dict | None
    difference: dict | None  # left minus right, paired: mean, std, ci_low, ci_high, n (shared examples)
    note: str = ""


def compare(left: Side, right: Side, settings: ScoringSettings) -> list[Comparison]:
    out = []
    for measure in scorecard.every_scorecard():
        # A cell that decides, else one that says its probe held too few examples (shown, not compared).
        found_left = scorecard.shown_cell(left.scores, left.model, measure)
        found_right = scorecard.shown_cell(right.scores, right.model, measure)
        split = (found_left or found_right or (None,))[0]
        row_left = left.scores.get(left.model, measure.probe, split, measure.statistic) if split else None
        row_right = right.scores.get(right.model, measure.probe, split, measure.statistic) if split else None
        if not (row_left or row_right):
            continue
        difference, note = None, ""
        too_few = [row["too_few"] for row in (row_left, row_right) if row and row.get("too_few")]
        if too_few:  # no difference rests on it, as no verdict does
            out.append(Comparison(measure, split, row_left, row_right, None, f"not compared: {too_few[0]}"))
            continue
        a = outcomes(left, measure.probe, measure.statistic, split)
        b = outcomes(right, measure.probe, measure.statistic, split)
        if a is None or b is None:
            note = (
                "not paired: a share among each model's own predictions"
                if measure.statistic.endswith("_pct") or "gain" in measure.statistic
                else "not paired: no per-example outcomes on both sides"
            )
        else:
            shared = sorted(set(a) & set(b))
            if shared:
                scorer = Scorer(len(shared), settings, "compare", measure.probe, split)
                diff = np.array([a[k] - b[k] for k in shared]) / 100.0
                difference = scorer.stat(diff, np.ones(len(shared)))
            note = f"paired on {len(shared)} shared examples" + (
                f" ({len(a) - len(shared)} of the left side's and {len(b) - len(shared)} of the right's not shared)"
                if len(shared) < max(len(a), len(b))
                else ""
            )
        out.append(Comparison(measure, split, row_left, row_right, difference, note))
    return out


def side_verdicts(side: Side, record: Mapping) -> dict[str, str | None]:
    """The verdict on the side's model in a few words, per dataset of its run, as its run's report
    gives it (report.plan): from that dataset's rows alone, another dataset's verdict beside the
    hypothesis-only model the report pairs it with. None for a dataset whose probes the model did
    not answer. `record`: the side's run.json."""
    from tabprobe.report import own_part, own_verdicts, verdicts
    from tabprobe.report.plan import plan_of

    infos = record["models"]
    facts = verdicts.facts_of(infos, record.get("relevance", {}))
    plan = plan_of(side.scores, [], list(infos), [])
    # Every registered dataset, the paper's first: a dataset the side has no rows of answers None.
    out: dict[str, str | None] = {d.name: None for d in sorted(all_datasets(), key=lambda d: not d.paper)}
    for dataset, part in plan.parts.items():
        scores = part.scores
        if side.model not in scores.models():
            out[dataset] = None
        elif side.model not in facts:
            out[dataset] = "not probed for a verdict (derived model)"
        elif not part.dataset.paper:
            answering = [m for m in scores.models() if m in infos]
            baseline = own_part.baselines(part, infos, answering)[side.model]
            verdict = own_verdicts.own_verdict(part, side.model, facts[side.model], baseline)
            out[dataset] = verdicts.short_verdict(verdict)
        else:
            out[dataset] = verdicts.short_verdict(verdicts.verdict(part, side.model, facts[side.model]))
    return out
