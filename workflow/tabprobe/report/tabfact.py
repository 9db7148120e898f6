"""The report's TabFact part (issue 35): the four verdict questions answered from TabFact's probes
(`tabfact_verdicts`), accuracy on the test set's simple and complex statements, the record probes'
transitions, the probes whose expected labels come from executing human-written programs, the
statement edits and premise controls, and their coverage. TabFact has two labels, ENTAILED and
REFUTED: no NEUTRAL column or row anywhere here; an InfoTabS model's NEUTRAL answers are read as
REFUTED, and their share is stated beside its numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from tabprobe.data.datasets import get_dataset
from tabprobe.probes import get_probe
from tabprobe.report import tabfact_verdicts
from tabprobe.report.blocks import Section, Stat, TableBlock, VerdictBlock
from tabprobe.report.coverage import POWER_HEADER, POWER_NOTE, coverage_row
from tabprobe.report.dataset_rows import TABFACT, dataset_of_probe
from tabprobe.report.inputs import RunInfo
from tabprobe.report.run import training_cells
from tabprobe.report.tables import PAIRED_DROP
from tabprobe.report.verdicts import facts_of, short_verdict
from tabprobe.scoring.results import Index

LABELS = ("E", "C")
NAMES = get_dataset("tabfact").label_names  # E: ENTAILED, C: REFUTED
SPLIT_ORDER = ("simple_test", "complex_test", "bootstrap", "val", "test", "small_test", "train")
RECORD_PROBES = ("column_permutation", "record_permutation", "record_deletion", "record_insertion")
PROGRAM_PROBES = (
    "relevant_record_deletion",
    "irrelevant_record_deletion",
    "program_cell_update",
    "program_record_deletion",
)

PROVENANCE = (
    "What the TabFact numbers rest on: the val and test statements and tables are TabFact's as released upstream "
    "(byte-identical; `simple_test` and `complex_test` are the two halves of its test set as upstream divides "
    "them); `bootstrap` holds the statements of val and test tables that come with a human-written program "
    "(bootstrap.json), kept where the program gives the statement's label on its original table, and each "
    "program probe's expected label is recomputed by this project's executor on the edited table; TabFact's "
    "train statements are reconstructed from a third party's copy, not the upstream file "
    "(../shared/tabfact/README.md): {trained}."
)
EXECUTED = (
    "These probes' expected labels come from executing the statement's human-written program (TabFact's "
    "bootstrap.json) on the edited table with this project's executor: a deleted record that a `count` needed "
    "makes the statement REFUTED, and the expected label says so. Only statements whose program gives their label "
    "on the original table are probed (split `bootstrap`); `tf_original` on the same statements is the unperturbed "
    "reference each drop is paired with. "
)


def splits_of(scores: Index, probes: Sequence[str]) -> list[str]:
    """The splits where any of `probes` has scores, in SPLIT_ORDER (any other after, by name)."""
    present = set(scores.table.filter(pl.col("probe").is_in(list(probes)))["split"].unique().to_list())
    return [s for s in SPLIT_ORDER if s in present] + sorted(present - set(SPLIT_ORDER))


def _probes_present(scores: Index, probes: Sequence[str]) -> list[str]:
    present = set(scores.table["probe"].unique().to_list())
    return [p for p in probes if p in present]


def _run_order(scores: Index, run: RunInfo) -> list[str]:
    """The probes with TabFact scores: in the run's order, then any the run does not list, by name."""
    present = set(scores.table["probe"].unique().to_list())
    return [p for p in run.probes if p in present] + sorted(present - set(run.probes))


def _has_neutral(scores: Index, models: Sequence[str]) -> bool:
    """Whether any model answered with three labels (it has a NEUTRAL-answer statistic)."""
    statistics = set(scores.table.filter(pl.col("model").is_in(list(models)))["statistic"].unique().to_list())
    return bool(statistics & {"neutral_answers_pct", "neutral_answers_pct_before"})


def baselines(
    scores: Index, infos: Mapping[str, Mapping], models: Sequence[str], tabfact_only: set[str]
) -> dict[str, str | None]:
    """Each model's hypothesis-only model: one trained on the same data (TabFact-only with
    TabFact-only), else any that answered `tf_original`. `infos`: what run.json records of each
    model (its premise)."""
    candidates = [
        m
        for m in models
        if infos[m]["premise"] == "hypothesis_only"
        and tabfact_verdicts.first_measured(scores, m, "tf_original", "accuracy")
    ]
    return {
        m: next(
            (b for b in candidates if (b in tabfact_only) == (m in tabfact_only)), candidates[0] if candidates else None
        )
        for m in models
    }


def verdict_section(scores: Index, run: RunInfo, models: Sequence[str], tabfact_only: set[str]) -> Section:
    section = Section("TabFact verdicts: does each model use the evidence in its table?", anchor="tabfact-verdicts")
    section.blocks.append(
        "The four questions of the verdicts above, answered from TabFact's probes alone; each number names the "
        "probe and split it comes from. How they are decided:"
    )
    section.blocks += [f"({i}) {rule}" for i, rule in enumerate(tabfact_verdicts.TABFACT_RULES, start=1)]
    facts = facts_of({m: run.models[m] for m in models}, {})
    paired = baselines(scores, run.models, models, tabfact_only)
    found = {m: tabfact_verdicts.tabfact_verdict(scores, m, facts[m], paired[m]) for m in models}
    section.blocks.append(
        TableBlock(
            ["Model", "Answers"] + [f.question for f in next(iter(found.values())).findings] + ["In a few words"],
            [
                [m, _answers(m, tabfact_only)] + [f.answer for f in v.findings] + [short_verdict(v)]
                for m, v in found.items()
            ],
            caption="TabFact verdicts at a glance (the numbers behind each are listed below)",
        )
    )
    section.blocks += [VerdictBlock(v) for v in found.values()]
    return section


def _answers(model: str, tabfact_only: set[str]) -> str:
    return "TabFact only" if model in tabfact_only else "InfoTabS and TabFact"


def head_labels(info: dict) -> tuple[str, ...] | None:
    """The labels of a model's head, as its checkpoint's tabprobe metadata maps them (a model
    tabprobe trained or built); None where the checkpoint does not say (a user's)."""
    mapped = set(((info.get("meta") or {}).get("label_map") or {}).values())
    return tuple(lab for lab in ("E", "N", "C") if lab in mapped) or None


def trained_on_tabfact(info: dict) -> bool:
    """Trained by this run on TabFact's (reconstructed) train split: tabprobe gives a model it
    trains the labels of its training data, and only TabFact's are two."""
    return bool((info.get("meta") or {}).get("trained")) and head_labels(info) == ("E", "C")


def _labels_cell(info: dict) -> str:
    labels = head_labels(info)
    if labels == ("E", "C"):
        return "ENTAILED, REFUTED"
    if labels == ("E", "N", "C"):
        return "ENTAIL, NEUTRAL, CONTRADICT: NEUTRAL read as REFUTED"
    return "as its checkpoint names them; a NEUTRAL answer reads as REFUTED"


def models_block(run: RunInfo, models: Sequence[str], tabfact_only: set[str]) -> TableBlock:
    rows = []
    for m in models:
        training, dev = training_cells(run.models[m])
        labels = _labels_cell(run.models[m])
        rows.append(
            [
                m,
                run.models[m]["premise"],
                _answers(m, tabfact_only),
                training,
                dev,
                labels,
            ]
        )
    return TableBlock(
        ["Model", "Premise rendering", "Answers", "Training", "Dev accuracy", "Its labels on TabFact"],
        rows,
        caption="The models that answered TabFact's probes",
    )


def accuracy_section(scores: Index, run: RunInfo, models: Sequence[str]) -> Section | None:
    splits = splits_of(scores, ["tf_original"])
    if not splits:
        return None
    section = Section("TabFact accuracy: simple and complex statements (`tf_original`)")
    section.blocks.append(
        "Accuracy on TabFact's unperturbed statements. `simple_test` and `complex_test` are the two halves of "
        "TabFact's test set: statements about a single record, and statements that count, compare, rank or "
        "aggregate over several. The two are different statements, so their difference is not paired. "
        f"Mean (std) over {run.scoring['samplings']} samplings of {run.scoring['fraction']:.0%} of the statements, "
        f"[{run.scoring['confidence']:.0%} bootstrap interval], n. The last row answers the commoner label every time."
    )
    neutral = _has_neutral(scores, models)
    header = ["Model"] + splits + ([f"{s}: NEUTRAL answers (%)" for s in splits] if neutral else [])
    rows = []
    for m in models:
        cells = [Stat.of(scores.get(m, "tf_original", s, "accuracy")) for s in splits]
        if neutral:
            cells += [Stat.of(scores.get(m, "tf_original", s, "neutral_answers_pct")) for s in splits]
        rows.append([m] + cells)
    majority = []
    for s in splits:
        share = next((v for m in models if (v := tabfact_verdicts.majority_pct(scores, m, s)) is not None), None)
        majority.append(Stat(share))
    rows.append(["always the majority label"] + majority + ([""] * len(splits) if neutral else []))
    section.blocks.append(
        TableBlock(header, rows, caption="Accuracy (%) on TabFact's statements, mean (std) [95% CI] n")
    )
    return section


def _rule_text(rule) -> str:
    return "; ".join(f"{NAMES[b]} → {', '.join(NAMES[a] for a in LABELS if a in rule.allowed[b])}" for b in LABELS)


def transition_section(scores: Index, run: RunInfo, models: Sequence[str]) -> Section | None:
    probes = _probes_present(scores, RECORD_PROBES)
    if not probes:
        return None
    section = Section("TabFact record probes: transitions between ENTAILED and REFUTED")
    section.blocks.append(
        "Table edits that keep or may change the label, judged by the prediction before and after: each cell is "
        "the share (%) of the statements predicted with the first label that are predicted with the second once "
        "the table is edited, with n the statements predicted with the first; a transition the rule forbids is "
        "marked invalid. A model that never sees its table never moves and has no invalid transition by "
        "construction; few invalid transitions are a merit only in a model that moves where the table changes."
    )
    neutral = _has_neutral(scores, models)
    if neutral:
        section.blocks.append(
            "A three-way (InfoTabS) model's NEUTRAL answers are read as REFUTED, before and after the edit; the "
            "last two columns give their share of all its answers."
        )
    for probe in probes:
        rule = get_probe(probe).transition_rule
        pairs = [(b, a) for b in LABELS for a in LABELS]
        header = ["Model", "Split"] + [
            f"{NAMES[b]} → {NAMES[a]}" + ("" if a in rule.allowed[b] else " (invalid)") for b, a in pairs
        ]
        header += ["Invalid transitions (%)", "Did not move (%)"]
        header += ["NEUTRAL answers before (%)", "NEUTRAL answers after (%)"] if neutral else []
        rows = []
        for m in models:
            for split in splits_of(scores, [probe]):
                cells = [Stat.of(scores.get(m, probe, split, f"transition_pct_to_{a}", b)) for b, a in pairs]
                cells += [Stat.of(scores.get(m, probe, split, s)) for s in ("invalid_transition_pct", "unchanged_pct")]
                if neutral:
                    cells += [
                        Stat.of(scores.get(m, probe, split, f"neutral_answers_pct_{w}")) for w in ("before", "after")
                    ]
                if any(c.shown for c in cells):
                    rows.append([m, split] + cells)
        section.blocks.append(
            f"`{probe}`: {get_probe(probe).description} Valid transitions ({rule.source}): {_rule_text(rule)}."
        )
        section.blocks.append(TableBlock(header, rows, caption=f"`{probe}`: transitions (%), mean (std) [95% CI] n"))
    return section


def expected_table(
    scores: Index, models: Sequence[str], probes: Sequence[str], caption: str, only: Sequence[str] = ()
) -> TableBlock:
    """Accuracy per probe, model and split (`only` those, where given) against the expected label, by
    expected label (ENTAILED, REFUTED), the paired drop from `tf_original`, and a three-way model's
    NEUTRAL share."""
    neutral = _has_neutral(scores, models)
    header = ["Probe", "Model", "Split", "Accuracy (%)"] + [f"expected {NAMES[lab]} (%)" for lab in LABELS]
    header += ["Drop from `tf_original` (paired, points)"] + (["NEUTRAL answers (%)"] if neutral else [])
    rows = []
    for probe in probes:
        for m in models:
            for split in [s for s in splits_of(scores, [probe]) if not only or s in only]:
                cells = [Stat.of(scores.get(m, probe, split, "accuracy", lab)) for lab in ("all", *LABELS)]
                cells.append(Stat.of(scores.get(m, probe, split, "accuracy_drop"), signed=True))
                if neutral:
                    cells.append(Stat.of(scores.get(m, probe, split, "neutral_answers_pct")))
                if any(c.shown for c in cells):
                    rows.append([f"`{probe}`", m, split] + cells)
    return TableBlock(header, rows, caption=caption)


def executed_section(scores: Index, models: Sequence[str]) -> Section | None:
    probes = _probes_present(scores, PROGRAM_PROBES)
    if not probes:
        return None
    section = Section("TabFact probes labelled by executing programs (`bootstrap`)")
    section.blocks.append(EXECUTED + PAIRED_DROP)
    section.blocks += [f"`{p}`: {get_probe(p).description}" for p in probes]
    section.blocks.append(
        expected_table(
            scores, models, ["tf_original", *probes], "Accuracy against the label the program gives", only=["bootstrap"]
        )
    )
    return section


def statement_section(scores: Index, run: RunInfo, models: Sequence[str]) -> Section | None:
    covered = {"tf_original", *RECORD_PROBES, *PROGRAM_PROBES}
    probes = [p for p in _run_order(scores, run) if p not in covered and get_probe(p).judged_by == "expected"]
    if not probes:
        return None
    section = Section("TabFact statement edits, renamed entities and premise controls")
    section.blocks.append(
        "Probes judged by an expected label: edits of the statement that flip it, entities renamed consistently in "
        "table and statement (the label kept), and the premise controls (the table removed, another table). "
        + PAIRED_DROP
    )
    section.blocks += [f"`{p}`: {get_probe(p).description}" for p in probes]
    section.blocks.append(expected_table(scores, models, probes, "Accuracy against the expected label"))
    return section


def coverage_section(run: RunInfo) -> Section | None:
    entries = [c for c in run.coverage if dataset_of_probe(c["probe"]) == TABFACT]
    if not entries:
        return None
    section = Section("TabFact probe coverage")
    section.blocks.append(
        "How many statements each TabFact probe could edit, and why it skipped or dropped the rest. " + POWER_NOTE
    )
    probe_order = {p: i for i, p in enumerate(run.probes)}
    split_order = {s: i for i, s in enumerate(SPLIT_ORDER)}
    entries.sort(
        key=lambda c: (
            probe_order.get(c["probe"], len(probe_order)),
            c["probe"],
            split_order.get(c["split"], len(split_order)),
        )
    )
    rows = [coverage_row(c, run.power) for c in entries]
    header = [
        "Probe",
        "Split",
        "Cap",
        "Gold statements",
        "Perturbed",
        *POWER_HEADER,
        "Skipped (reason: count)",
        "Dropped (broken promise: count)",
    ]
    section.blocks.append(TableBlock(header, rows))
    return section


def tabfact_sections(scores: Index, run: RunInfo, tabfact_only: set[str]) -> list[Section]:
    """The TabFact part, from the results table's TabFact rows; `tabfact_only`: the models that
    answered TabFact's probes only (those trained on it, and a user's model given `datasets: [tabfact]`)."""
    models = [m for m in run.models if m in set(scores.models())]
    trained = [m for m in models if trained_on_tabfact(run.models[m])]
    intro = Section("TabFact: the same questions on relational tables", anchor="tabfact")
    intro.blocks.append(
        "TabFact (Chen et al., 2020): Wikipedia tables with a header and records, statements labelled ENTAILED or "
        "REFUTED. The same probes' questions, asked with edits written for its tables and statements."
    )
    intro.blocks.append(
        PROVENANCE.format(
            trained=f"the TabFact models ({', '.join(trained)}) were trained on them"
            if trained
            else "no model of this run was trained on them"
        )
    )
    intro.blocks.append(models_block(run, models, tabfact_only))
    intro.blocks.append(
        f"TabFact probes scored: {', '.join(_run_order(scores, run))}. Splits: {', '.join(splits_of(scores, _run_order(scores, run)))}. "
        f"Seed: {run.seed}."
    )
    parts = [
        verdict_section(scores, run, models, tabfact_only) if models else None,
        accuracy_section(scores, run, models),
        transition_section(scores, run, models),
        executed_section(scores, models),
        statement_section(scores, run, models),
        coverage_section(run),
    ]
    sections = [intro]
    for part in parts:
        if part:
            part.level = 3
            sections.append(part)
    return sections
