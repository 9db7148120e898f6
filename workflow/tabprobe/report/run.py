"""The run itself: its models (training, checkpoint, fingerprint, truncation), data, probes and
seed, and accuracy on the unperturbed splits beside the paper's Table 1."""

from __future__ import annotations

from .. import paper
from ..results import Index
from .blocks import Alert, Section, Stat, TableBlock
from .inputs import RunInfo


def run_section(run: RunInfo) -> Section:
    section = Section("This run")
    for name, model in run.models.items():
        meta = model.get("meta") or {}
        if meta.get("trained") is False:
            section.blocks.append(
                Alert(
                    f"Model {name} has an untrained classification head ({meta.get('note', '')}); "
                    "its predictions exercise the workflow but say nothing about NLI reasoning."
                )
            )
    rows = []
    for name, m in run.models.items():
        meta = m.get("meta") or {}
        if meta.get("trained"):
            ts = meta["train_settings"]
            training = (
                f"{meta['train_examples']} of {meta['train_examples_available']} train examples, "
                f"{ts['epochs']} epoch(s), max_length {ts['max_length']}, {meta['train_seconds']:.0f} s"
            )
            dev = f"{meta['dev_accuracy']:.2f} (n={meta['dev_examples']})"
        else:
            training = "untrained head" if meta.get("trained") is False else "user checkpoint"
            dev = "–"
        rows.append(
            [
                name,
                m["premise"],
                training,
                dev,
                str(m["checkpoint"]),
                m.get("fingerprint", "–"),
                f"{m['truncated']} of {m['examples']}",
                m.get("precision") or "–",
            ]
        )
    section.blocks.append(
        TableBlock(
            [
                "Model",
                "Premise rendering",
                "Training",
                "Dev accuracy",
                "Checkpoint",
                "Fingerprint",
                "Premises cut to max_length (all probes and splits)",
                "Inference precision",
            ],
            rows,
        )
    )
    section.blocks.append(
        f"Data: {run.data_source}. Splits: {', '.join(run.splits)}. Probes: {', '.join(run.probes)}. Seed: {run.seed}."
    )
    return section


def accuracy_section(scores: Index, run: RunInfo) -> Section:
    section = Section("Accuracy on the unperturbed splits (probe `original`)")
    section.blocks.append(
        "Mean (standard deviation) of accuracy over "
        f"{run.scoring['samplings']} samplings of {run.scoring['fraction']:.0%} of the examples, "
        f"and a {run.scoring['confidence']:.0%} percentile bootstrap interval "
        f"({run.scoring['bootstrap']} resamples). Paper Table 1 (RoBERTa-large) for reference."
    )
    header = ["Model"] + [f"{s}" for s in run.splits]
    rows = []
    for model in run.models:
        cells = [model]
        for split in run.splits:
            r = scores.get(model=model, probe="original", split=split, statistic="accuracy", label="all")
            cells.append(Stat.of(r))
        rows.append(cells)
    for name, values in paper.TABLE1_ACCURACY.items():
        rows.append([f"paper: {name}"] + [Stat.reference(values.get(s)) for s in run.splits])
    section.blocks.append(TableBlock(header, rows))
    gaps = []
    for model, info in run.models.items():
        reference = (
            "Hypothesis only" if info["premise"] == "hypothesis_only" else "RoBERTa-large (premise + hypothesis)"
        )
        diffs = []
        for split in run.splits:
            r = scores.get(model=model, probe="original", split=split, statistic="accuracy", label="all")
            ref = paper.TABLE1_ACCURACY[reference].get(split)
            if r and r["mean"] is not None and ref is not None:
                diffs.append(f"{split} {r['mean'] - ref:+.1f}")
        if diffs:
            gaps.append(f"{model} vs paper {reference}: {', '.join(diffs)} points")
    if gaps:
        section.blocks.append("Gap to the paper's Table 1 (majority baseline: 33.3): " + "; ".join(gaps) + ".")
    return section
