"""The report's plan, made once from the results table and the probes' declarations: for each dataset
with rows in the results (its `dataset` column), its rows, its probes (the run's and every one
registered for it), its models, its splits in its part's order, its baseline probe and its chance
level, and which probe gives which number of a verdict (`Probe.verdict_role`), which goes in a
section of its own part (`Probe.report_section`) and which in a paper table (by family and
label_change, `probes.pooled_columns`). The report's parts ask the plan, never a probe's name: a
probe declares where it goes in its own module.

A row whose dataset is not registered is an error that names it: its scores are never read as
another dataset's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import polars as pl

from tabprobe.data.datasets import Dataset, get_dataset, names, paper_dataset
from tabprobe.probes import get_probe, is_external, is_fixed_set, made_by, pooled_columns, probes_for
from tabprobe.probes.base import Probe, Role
from tabprobe.scoring.results import Index, dataset_of_scores


@dataclass(frozen=True)
class Catalog:
    """A dataset's probes as their modules declare them, loaded from the registry once: every one
    registered for it, in registry order, and any probe of a run beside them (an external set). The
    report's parts and the scorecard read roles from here, never from the registry."""

    dataset: Dataset
    registered: tuple[str, ...]  # every probe registered for it, in registry order
    declared: Mapping[str, Probe]  # each of those and the run's probes, as its module declares it
    fixed_sets: frozenset[str]  # those whose examples were made beforehand (probes.is_fixed_set)
    made_by: Mapping[str, str]  # who made each one's examples (probes.made_by)

    def role(self, number: str) -> list[str]:
        """Its registered probes that give verdict number `number` (probes.base.VERDICT_ROLES), in
        registry order: a verdict reads them whether the run scored them or not (not scored: not measured)."""
        return [p for p in self.registered if (role := self.declared[p].verdict_role) and role.number == number]

    def declaration(self, name: str) -> Probe:
        """A probe of the catalog, as its module declares it."""
        if name not in self.declared:
            raise KeyError(f"probe {name!r} is not one of {self.dataset.title}'s in this report's plan")
        return self.declared[name]


def catalog_of(dataset: Dataset, run_probes: Sequence[str] = ()) -> Catalog:
    """The one visit to the probe registry for a dataset: its registered probes and `run_probes`, loaded."""
    registered = tuple(probes_for(dataset.name))
    names = (*registered, *(p for p in run_probes if p not in registered))
    return Catalog(
        dataset=dataset,
        registered=registered,
        declared={p: get_probe(p) for p in names},
        fixed_sets=frozenset(p for p in names if is_fixed_set(p)),
        made_by={p: made_by(p) for p in names},
    )


@cache
def registered_catalog(dataset: str) -> Catalog:
    """A registered dataset's catalog without a run (`tabprobe compare` compares every scorecard)."""
    return catalog_of(get_dataset(dataset))


# The statistics of a three-way model's NEUTRAL answers on a two-label dataset (scoring writes them).
NEUTRAL_SHARES = ("neutral_answers_pct", "neutral_answers_pct_before", "neutral_answers_pct_after")


@dataclass(frozen=True)
class DatasetPlan:
    """One dataset's part of the report: what of the run is its, and where each of its probes goes."""

    dataset: Dataset
    scores: Index  # its rows of the results table
    probes: tuple[str, ...]  # the run's probes of it, in the run's order
    # The run's models that answered its probes (the paper's part: all but those that answered only another's)
    models: tuple[str, ...]
    only: frozenset[str]  # the models that answered its probes and no other dataset's
    splits: tuple[str, ...]  # the run's splits of it, in its order
    # Its probes as their modules declare them: loaded once, when the plan is made, for every part
    catalog: Catalog

    @property
    def name(self) -> str:
        return self.dataset.name

    @property
    def baseline(self) -> str:
        """Its unperturbed probe, which every other probe's drop is paired with."""
        return self.dataset.baseline_probe

    @property
    def chance_pct(self) -> float | None:
        """Chance accuracy where its splits hold each label in equal shares (`ReportPart.chance`
        "uniform"); None where chance is the majority class of the examples scored, split by split."""
        return 100.0 / len(self.dataset.labels) if self.dataset.report.chance == "uniform" else None

    @property
    def split_order(self) -> tuple[str, ...]:
        """The order its part lists splits in: its `ReportPart.split_order`, else its showcase order."""
        return self.dataset.report.split_order or self.dataset.report.showcase_order

    @cached_property
    def present(self) -> frozenset[str]:
        """The probes with rows in its scores."""
        return frozenset(self.scores.table["probe"].unique().to_list())

    @property
    def registered(self) -> tuple[str, ...]:
        """Every probe registered for it, in registry order."""
        return self.catalog.registered

    def role(self, number: str) -> list[str]:
        """Its registered probes that give verdict number `number` (Catalog.role)."""
        return self.catalog.role(number)

    def judged(self, by: str) -> list[str]:
        """The run's probes of it judged `by` ("expected", "transitions", "evidence"), in the run's order."""
        return [p for p in self.probes if self.probe(p).judged_by == by]

    def role_of(self, probe: str) -> Role:
        role = self.probe(probe).verdict_role
        if role is None:
            raise ValueError(f"probe {probe} gives no verdict number (Probe.verdict_role)")
        return role

    def in_section(self, section: str) -> list[str]:
        """Its registered probes that go in its own part's section `section`, with rows in its scores."""
        return [p for p in self.registered if self.probe(p).report_section == section and p in self.present]

    def splits_of(self, probes: Iterable[str]) -> list[str]:
        """The splits where any of `probes` has scores, in its split order (any other after, by name)."""
        present = set(self.scores.table.filter(pl.col("probe").is_in(list(probes)))["split"].unique().to_list())
        return [s for s in self.split_order if s in present] + sorted(present - set(self.split_order))

    def has_neutral_answers(self, models: Iterable[str]) -> bool:
        """Whether any of `models` answered its examples with a label it does not have (a three-way
        model on a two-label dataset said NEUTRAL at least once). Scoring writes the NEUTRAL shares of
        every model on such a dataset, a two-label head's as 0: those say nothing and do not count."""
        answered = self.scores.table.filter(
            pl.col("model").is_in(list(models))
            & pl.col("statistic").is_in(list(NEUTRAL_SHARES))
            & (pl.col("mean").fill_null(0.0) > 0.0)
        )
        return answered.height > 0

    def with_scores(self, probes: Iterable[str]) -> list[str]:
        """`probes` (in their order) that have rows in its scores."""
        return [p for p in probes if p in self.present]

    def scored_in_run_order(self, run_probes: Sequence[str]) -> list[str]:
        """Its probes with rows: in the run's order, then any the run does not list, by name."""
        return [p for p in run_probes if p in self.present] + sorted(self.present - set(run_probes))

    def pooled(self, table: str) -> dict[str, list[str]]:
        """The run's probes of each column of a pooled paper table ("table4", "table7")."""
        return pooled_columns(table, {p: self.catalog.declared[p] for p in self.probes})

    def registered_pooled(self, table: str) -> dict[str, list[str]]:
        """Every registered probe of each column of a pooled paper table (to name what a run could add)."""
        return pooled_columns(table, {p: self.catalog.declared[p] for p in self.registered})

    def probe(self, name: str) -> Probe:
        """A probe of its part, as its module declares it."""
        return self.catalog.declaration(name)


@dataclass(frozen=True)
class ReportPlan:
    """Every dataset with rows in the results, the paper's first, then the others as registered."""

    parts: dict[str, DatasetPlan]

    @property
    def paper(self) -> DatasetPlan | None:
        """The paper dataset's part, where the report has one: a run with rows of the paper's dataset,
        or with rows of none other (the report of an empty run is the paper's, as it always was)."""
        return next((p for p in self.parts.values() if p.dataset.paper), None)

    @property
    def others(self) -> list[DatasetPlan]:
        return [p for p in self.parts.values() if not p.dataset.paper]


def dataset_column(table: pl.DataFrame) -> pl.Series:
    """Each row's dataset: the table's own `dataset` column; for a table written before the column
    existed, each probe's dataset as the registry gives it (`results.dataset_of_scores`)."""
    if "dataset" in table.columns:
        return table["dataset"]
    of_probe = {p: dataset_of_scores(p) for p in table["probe"].unique().to_list()}
    return (
        table["probe"].replace_strict(of_probe, return_dtype=pl.String) if of_probe else pl.Series([], dtype=pl.String)
    )


def probe_dataset(probe: str) -> str:
    """The dataset a run's probe belongs to: an external set's is the paper's (it is given in its format)."""
    return paper_dataset().name if is_external(probe) else dataset_of_scores(probe)


def plan_of(
    scores: Index,
    run_probes: Sequence[str],
    run_models: Sequence[str],
    run_splits: Sequence[str],
) -> ReportPlan:
    """The plan of a run's report from its results table (power already decided) and the run's
    probes, models and splits (config's order)."""
    table = scores.table
    column = dataset_column(table)
    known = names()
    unknown = sorted(set(column.unique().to_list()) - set(known))
    if unknown:
        raise ValueError(
            f"the results table has rows of dataset {', '.join(map(repr, unknown))}, which is not registered "
            f"(registered: {', '.join(known)}): name its package under `datasets:` in config "
            "(docs/adding-a-dataset.md), or leave its score files out of the results"
        )
    in_rows = [d for d in known if d in set(column.to_list())]
    paper = paper_dataset().name
    # Rows of the paper's dataset, or of no dataset at all: the paper's part (an empty run reads as it always did).
    wanted = ([paper] if paper in in_rows or not in_rows else []) + [d for d in in_rows if d != paper]
    marked = table.with_columns(column.alias("__dataset")) if "dataset" not in table.columns else table
    key = "dataset" if "dataset" in table.columns else "__dataset"
    rows = {d: marked.filter(pl.col(key) == d).drop("__dataset", strict=False) for d in wanted}
    # A run of one dataset keeps its Index as it is (no copy of the table).
    indexes = {d: scores if len(in_rows) <= 1 else Index(rows[d]) for d in wanted}
    answered = {d: set(indexes[d].models()) for d in wanted}
    parts = {}
    for name in wanted:
        others = set().union(*(answered[d] for d in wanted if d != name))
        dataset = get_dataset(name)
        probes = tuple(p for p in run_probes if probe_dataset(p) == name)
        parts[name] = DatasetPlan(
            dataset=dataset,
            scores=indexes[name],
            probes=probes,
            # The paper's part keeps a model with no rows at all (its tables say so); another part lists
            # the models that answered it.
            models=tuple(m for m in run_models if m in answered[name] or (dataset.paper and m not in others)),
            only=frozenset(answered[name] - others),
            splits=tuple(s for s in run_splits if s in dataset.splits),
            catalog=catalog_of(dataset, probes),
        )
    return ReportPlan(parts)


def part_of(scores: Index, dataset: str) -> DatasetPlan:
    """One dataset's part of a results table on its own (`tabprobe compare`, the tests): every model
    with rows, none of config's order."""
    parts = plan_of(scores, [], scores.models(), []).parts
    if dataset not in parts:
        raise ValueError(f"the results table has no rows of dataset {dataset!r} (it has: {', '.join(parts)})")
    return parts[dataset]
