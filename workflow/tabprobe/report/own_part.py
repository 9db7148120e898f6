"""The part of the report of a dataset other than the paper's (issue 35's part of the relational
tables, given a dataset): its four verdict questions answered from its probes (`own_verdicts`), accuracy on its
unperturbed examples, its table probes' transitions, the sections only it has (its
`ReportPart.sections`, e.g. the probes whose expected labels come from executing a relational
dataset's human-written programs), its statement edits and premise controls, and their coverage. Which probe
goes where is the report's plan (report.plan). A two-label dataset has no NEUTRAL column or row
anywhere here; a three-label model's NEUTRAL answers are read as its second label, and their share
is stated beside its numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabprobe import LABEL_NAMES
from tabprobe.data.datasets import OwnSection, paper_dataset
from tabprobe.data.table_type import HYPOTHESIS_ONLY
from tabprobe.report import accuracy, own_verdicts, transitions
from tabprobe.report.blocks import Section, Stat, TableBlock, VerdictBlock
from tabprobe.report.coverage import POWER_NOTE, coverage_table
from tabprobe.report.inputs import RunInfo
from tabprobe.report.plan import DatasetPlan, probe_dataset
from tabprobe.report.run import training_cells
from tabprobe.report.tables import PAIRED_DROP
from tabprobe.report.verdicts import facts_of, short_verdict


def _names(plan: DatasetPlan) -> Mapping[str, str]:
    return plan.dataset.label_names


def _read_as(plan: DatasetPlan) -> str:
    """The label a three-label model's NEUTRAL answer is read as."""
    return _names(plan)["C"]


def baselines(plan: DatasetPlan, infos: Mapping[str, Mapping], models: Sequence[str]) -> dict[str, str | None]:
    """Each model's hypothesis-only model: one trained on the same data (of this dataset only with
    of this dataset only), else any that answered the baseline probe. `infos`: what run.json records
    of each model (its premise)."""
    candidates = [
        m
        for m in models
        if infos[m]["premise"] == HYPOTHESIS_ONLY and own_verdicts.first_measured(plan, m, plan.baseline, "accuracy")
    ]
    return {
        m: next((b for b in candidates if (b in plan.only) == (m in plan.only)), candidates[0] if candidates else None)
        for m in models
    }


def verdict_section(plan: DatasetPlan, run: RunInfo, models: Sequence[str]) -> Section:
    """Its verdicts, which its part's later sections read (`run.verdicts`: `run` is the part's)."""
    title = plan.dataset.title
    section = Section(
        f"{title} verdicts: does each model use the evidence in its table?", anchor=f"{plan.name}-verdicts"
    )
    section.blocks.append(
        f"The four questions of the verdicts above, answered from {title}'s probes alone; each number names the "
        "probe and split it comes from. How they are decided:"
    )
    section.blocks += [f"({i}) {rule}" for i, rule in enumerate(own_verdicts.rules(plan), start=1)]
    facts = facts_of({m: run.models[m] for m in models}, {})
    paired = baselines(plan, run.models, models)
    found = {m: own_verdicts.own_verdict(plan, m, facts[m], paired[m]) for m in models}
    run.verdicts = found
    section.blocks.append(
        TableBlock(
            ["Model", "Answers"] + [f.question for f in next(iter(found.values())).findings] + ["In a few words"],
            [[m, _answers(plan, m)] + [f.answer for f in v.findings] + [short_verdict(v)] for m, v in found.items()],
            caption=f"{title} verdicts at a glance (the numbers behind each are listed below)",
        )
    )
    section.blocks += [VerdictBlock(v) for v in found.values()]
    return section


def _answers(plan: DatasetPlan, model: str) -> str:
    title = plan.dataset.title
    return f"{title} only" if model in plan.only else f"{paper_dataset().title} and {title}"


def head_labels(info: dict) -> tuple[str, ...] | None:
    """The labels of a model's head, as its checkpoint's tabprobe metadata maps them (a model
    tabprobe trained or built); None where the checkpoint does not say (a user's)."""
    mapped = set(((info.get("meta") or {}).get("label_map") or {}).values())
    return tuple(lab for lab in ("E", "N", "C") if lab in mapped) or None


def trained_on(plan: DatasetPlan, info: dict) -> bool:
    """Trained by this run on the dataset's train split: tabprobe gives a model it trains the
    labels of its training data, and only this dataset's are these (the paper's are three)."""
    return bool((info.get("meta") or {}).get("trained")) and head_labels(info) == plan.dataset.labels


def _labels_cell(plan: DatasetPlan, info: dict) -> str:
    labels, read_as = head_labels(info), _read_as(plan)
    if labels == plan.dataset.labels:
        return ", ".join(_names(plan)[lab] for lab in labels)
    if labels == ("E", "N", "C"):
        return f"{', '.join(LABEL_NAMES[lab] for lab in labels)}: NEUTRAL read as {read_as}"
    return f"as its checkpoint names them; a NEUTRAL answer reads as {read_as}"


def models_block(plan: DatasetPlan, run: RunInfo, models: Sequence[str]) -> TableBlock:
    rows = []
    for m in models:
        training, dev = training_cells(run.models[m])
        rows.append([m, run.models[m]["premise"], _answers(plan, m), training, dev, _labels_cell(plan, run.models[m])])
    title = plan.dataset.title
    return TableBlock(
        ["Model", "Premise rendering", "Answers", "Training", "Dev accuracy", f"Its labels on {title}"],
        rows,
        caption=f"The models that answered {title}'s probes",
    )


def transition_sections(part_run: RunInfo) -> list[Section]:
    """Its table probes judged by transitions, each in the section every part shares
    (report.transitions), after a paragraph on how to read them."""
    plan = part_run.plan
    probes = [p for p in plan.registered if plan.probe(p).judged_by == "transitions" and p in plan.present]
    if not probes:
        return []
    names = _names(plan)
    lead = Section(
        f"{plan.dataset.title} record probes: transitions between {' and '.join(names[lab] for lab in plan.dataset.labels)}"
    )
    lead.blocks.append(
        "Table edits that keep or may change the label, judged by the prediction before and after: a transition "
        "the probe's rule forbids is invalid. A model that never sees its table never moves and has no invalid "
        "transition by construction; few invalid transitions are a merit only in a model that moves where the "
        "table changes. Each probe's section gives, per model, its invalid transitions by the label predicted "
        "before, the share that did not move, its transition graph and matrix, and failing examples."
    )
    return [lead] + [transitions.invalid_transition_section(plan.scores, part_run, p) for p in probes]


def expected_table(
    plan: DatasetPlan, models: Sequence[str], probes: Sequence[str], caption: str, only: Sequence[str] = ()
) -> TableBlock:
    """Accuracy per probe, model and split (`only` those, where given) against the expected label, by
    expected label, the paired drop from the baseline probe, and a three-way model's NEUTRAL share."""
    neutral = plan.has_neutral_answers(models)
    names, labels = _names(plan), plan.dataset.labels
    header = ["Probe", "Model", "Split", "Accuracy (%)"] + [f"expected {names[lab]} (%)" for lab in labels]
    header += [f"Drop from `{plan.baseline}` (paired, points)"] + (["NEUTRAL answers (%)"] if neutral else [])
    rows = []
    for probe in probes:
        for m in models:
            for split in [s for s in plan.splits_of([probe]) if not only or s in only]:
                cells = [Stat.of(plan.scores.get(m, probe, split, "accuracy", lab)) for lab in ("all", *labels)]
                cells.append(Stat.of(plan.scores.get(m, probe, split, "accuracy_drop"), signed=True))
                if neutral:
                    cells.append(Stat.of(plan.scores.get(m, probe, split, "neutral_answers_pct")))
                if any(c.shown for c in cells):
                    rows.append([f"`{probe}`", m, split] + cells)
    return TableBlock(header, rows, caption=caption)


def own_section(plan: DatasetPlan, run: RunInfo, own: OwnSection) -> Section | None:
    """A section only this dataset has: the probes that declare it, beside the baseline probe, and
    their failing examples."""
    models = list(run.models)
    probes = plan.in_section(own.name)
    if not probes:
        return None
    section = Section(own.title)
    section.blocks.append(own.intro + PAIRED_DROP)
    section.blocks += [f"`{p}`: {plan.probe(p).description}" for p in probes]
    section.blocks.append(expected_table(plan, models, [plan.baseline, *probes], own.caption, only=own.splits))
    section.blocks += run.examples_of(probes, models)
    return section


def statement_section(plan: DatasetPlan, run: RunInfo, models: Sequence[str]) -> Section | None:
    """The probes judged by an expected label that no section of the dataset's own holds."""
    own = {p for s in plan.dataset.report.sections for p in plan.in_section(s.name)}
    probes = [
        p
        for p in plan.scored_in_run_order(run.probes)
        if p != plan.baseline and p not in own and plan.probe(p).judged_by == "expected"
    ]
    if not probes:
        return None
    section = Section(f"{plan.dataset.title} statement edits, renamed entities and premise controls")
    section.blocks.append(
        "Probes judged by an expected label: edits of the statement that flip it, entities renamed consistently in "
        "table and statement (the label kept), and the premise controls (the table removed, another table). "
        + PAIRED_DROP
    )
    section.blocks += [f"`{p}`: {plan.probe(p).description}" for p in probes]
    section.blocks.append(expected_table(plan, models, probes, "Accuracy against the expected label"))
    section.blocks += run.examples_of(probes, models)
    return section


def coverage_section(plan: DatasetPlan, run: RunInfo) -> Section | None:
    entries = [c for c in run.coverage if probe_dataset(c["probe"]) == plan.name]
    if not entries:
        return None
    title = plan.dataset.title
    section = Section(f"{title} probe coverage")
    section.blocks.append(
        f"How many statements each {title} probe could edit, and why it skipped or dropped the rest. " + POWER_NOTE
    )
    section.blocks.append(coverage_table(run, entries, plan.split_order, noun="statements", curation=False))
    return section


def part_sections(plan: DatasetPlan, run: RunInfo) -> list[Section]:
    """The dataset's part, from its rows of the results table (the plan's): its heading and intro,
    its models, then its verdicts, accuracy, transitions, own sections, statement edits and coverage."""
    models = list(plan.models)
    title = plan.dataset.title
    trained = [m for m in models if trained_on(plan, run.models[m])]
    intro = Section(plan.dataset.report.title or title, anchor=plan.name)
    said = (
        f"the {title} models ({', '.join(trained)}) were trained on them"
        if trained
        else "no model of this run was trained on them"
    )
    intro.blocks += [paragraph.format(trained=said) for paragraph in plan.dataset.report.intro]
    intro.blocks.append(models_block(plan, run, models))
    scored = plan.scored_in_run_order(run.probes)
    intro.blocks.append(
        f"{title} probes scored: {', '.join(scored)}. Splits: {', '.join(plan.splits_of(scored))}. Seed: {run.seed}."
    )
    part_run = run.of_part(plan)  # its models, probes, coverage and failing examples; its verdicts, once found
    parts = [
        verdict_section(plan, part_run, models) if models else None,
        accuracy.accuracy_section(part_run),
        *transition_sections(part_run),
        *(own_section(plan, part_run, own) for own in plan.dataset.report.sections),
        statement_section(plan, part_run, models),
        coverage_section(plan, part_run),
    ]
    sections = [intro]
    for part in parts:
        if part:
            part.level = 3
            sections.append(part)
    return sections
