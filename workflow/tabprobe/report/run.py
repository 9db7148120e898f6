"""The run itself: its models (training, checkpoint, fingerprint, truncation), data, probes and
seed (accuracy on the unperturbed splits is report/accuracy.py's, shared by every part)."""

from __future__ import annotations

from tabprobe.probes import MADE_BY
from tabprobe.report.blocks import Alert, Section, TableBlock
from tabprobe.report.inputs import RunInfo
from tabprobe.report.served import served_description

PROMPTED_MODELS_NOTE = (
    "A prompted causal LM is not fine-tuned: each example becomes a prompt (the table as rendered, the "
    "hypothesis, a question), and its probabilities over E / N / C are a softmax of the log-likelihoods "
    "of the three verbalisers as the prompt's continuation. Every probe reads them as it reads a "
    "classifier's: a model that uses its table changes its answer when a table edit changes the label "
    "(the transition rules) and keeps it when the edit does not; accuracy that holds when the table is "
    "removed or the labels flip by hypothesis edits alone points to answers from the hypothesis and from "
    "what the model memorised, not from the table. Prompt wording and shots move these numbers, so "
    "compare prompted models under the same template."
)


def prompted_description(causal: dict) -> str:
    """How a causal LM was prompted and scored, in one cell."""
    verbalisers = " / ".join(f"{label} {causal['verbalisers'][label]!r}" for label in ("E", "N", "C"))
    text = (
        f"prompted causal LM, {causal['shots']}-shot{', chat template' if causal.get('chat_template') else ''}; "
        f"label likelihood of {verbalisers}"
    )
    priors = causal.get("calibrated_priors")
    if priors:
        text += (
            "; contextual calibration (content-free priors "
            + ", ".join(f"{k} {priors[k]:.2f}" for k in ("E", "N", "C"))
            + ")"
        )
    return text


def training_cells(model: dict) -> tuple[str, str]:
    """How a model came to be (its training, a prompt, or a checkpoint as given) and its dev accuracy,
    from what run.json records of it."""
    meta = model.get("meta") or {}
    if meta.get("trained"):
        ts = meta["train_settings"]
        training = (
            f"{meta['train_examples']} of {meta['train_examples_available']} train examples, "
            f"{ts['epochs']} epoch(s), max_length {ts['max_length']}, {meta['train_seconds']:.0f} s"
        )
        if meta.get("base_model"):  # trained on from another model of the run (config/trained_from.py)
            training += f", from {meta['base_model']['name']}'s weights"
            if narrowed := meta["base_model"].get("head_narrowed_from"):  # a two-label head from a three-label one
                kept = ", ".join(meta["label_map"].values())
                training += f" (its {kept} outputs of {', '.join(narrowed)})"
        return training, f"{meta['dev_accuracy']:.2f} (n={meta['dev_examples']})"
    if model.get("causal"):
        return prompted_description(model["causal"]), "–"
    if model.get("endpoint"):
        return served_description(model["endpoint"]), "–"
    return ("untrained head" if meta.get("trained") is False else "user checkpoint"), "–"


def premise_cell(model: dict) -> str:
    """Its premise rendering and, where the pipeline selects what the premise keeps, by which rule and
    in how many of its inputs selection left something out."""
    if not model.get("premise_selection"):
        return model["premise"]
    return (
        f"{model['premise']}, rows selected (`{model['premise_selection']}`; "
        f"{model.get('selected', 0)} of {model['examples']} premises narrowed)"
    )


RUN_TITLE = "This run"


def run_section(run: RunInfo) -> Section:
    section = Section(RUN_TITLE)
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
        training, dev = training_cells(m)
        rows.append(
            [
                name,
                premise_cell(m),
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
    selecting = [f"{name}: {m['premise_holds']}" for name, m in run.models.items() if m.get("premise_selection")]
    if selecting:
        section.blocks.append(
            "Premises selected by the pipeline, not read whole (the same rule in training and inference): "
            + "; ".join(selecting)
            + ". What such a model is shown was chosen for it; the probes test whether it uses what it is shown."
        )
    if any(m.get("causal") or m.get("endpoint") for m in run.models.values()):
        section.blocks.append(PROMPTED_MODELS_NOTE)
    section.blocks.append(
        f"Data: {run.data_source}. Splits: {', '.join(run.splits)}. Probes: {', '.join(run.probes)}. Seed: {run.seed}."
    )
    section.blocks.append(provenance_table(run))
    return section


def provenance_table(run: RunInfo) -> TableBlock:
    """Which data each probe's numbers rest on: who made its examples, and where a set read as it
    is was read from (run.json's `data` holds the same)."""
    sources: dict[str, dict[str, str]] = {}
    for c in run.coverage:
        sources.setdefault(c["probe"], {})
        if c.get("source"):
            sources[c["probe"]][c["split"]] = c["source"]
    rows = [
        [
            f"`{probe}`",
            MADE_BY[run.plan.catalog.made_by[probe]],
            "; ".join(f"{s}: {p}" for s, p in sorted(sources.get(probe, {}).items())),
        ]
        for probe in run.probes
    ]
    return TableBlock(["Probe", "Its examples are", "Read from"], rows, caption="Which data each number rests on")
