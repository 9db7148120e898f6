"""Power before verdicts: a probe holding fewer examples on a split than its minimum (config
`min_examples`, recorded in run.json) decides nothing there.

The report reads such a probe's scores through `decided`, which empties their means and
intervals and says why in a `too_few` column: every part then treats them as not measured (the
verdicts, the scorecard and the summary figure read only cells with a mean, `Index.first`), while
a table that lists the probe shows "too few examples (n=..., minimum ...)" in its cells
(`blocks.Stat`), so the row is there and says it decides nothing. A probe's n on a split is the
number of examples it was scored on (the largest n of its cells: per-label cells count only the
examples of that label), the same for every model; the coverage table sets it beside the minimum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import polars as pl

from tabprobe.config import schema_default
from tabprobe.scoring.results import Index, showcase_order

TOO_FEW = "too few examples"
# The cells a masked score loses: what a verdict or a figure could read from it.
READ_COLUMNS = ("mean", "std", "ci_low", "ci_high")


@dataclass(frozen=True)
class Minimums:
    """The fewest examples each probe needs on a split: run.json's `min_examples` record
    (config.min_examples_record), the schema's default for a run that recorded none."""

    default: int
    probes: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of_record(cls, record: Mapping | None) -> Minimums:
        if not record:
            return cls(schema_default("min_examples"))
        return cls(record["default"], dict(record.get("probes") or {}))

    def of(self, probe: str) -> int:
        return self.probes.get(probe, self.default)


@dataclass(frozen=True)
class Power:
    """Each (probe, split)'s n against its probe's minimum."""

    minimums: Minimums
    examples: Mapping[tuple[str, str], int]  # (probe, split) -> examples scored

    def n(self, probe: str, split: str) -> int | None:
        return self.examples.get((probe, split))

    def too_few(self, probe: str, split: str) -> str | None:
        """ "too few examples (n=6, minimum 40)" where the probe holds fewer than its minimum on
        the split; None where it holds enough, or was not scored there."""
        n = self.n(probe, split)
        if n is None or n >= self.minimums.of(probe):
            return None
        return f"{TOO_FEW} (n={n}, minimum {self.minimums.of(probe)})"

    def underpowered(self) -> list[tuple[str, str]]:
        return sorted(key for key in self.examples if self.too_few(*key))


def power_of(scores: Index, minimums: Minimums) -> Power:
    """The n of every (probe, split) of the results table: the most examples any of its cells
    rests on, over every model (they all answer the same examples)."""
    if not scores.table.height:
        return Power(minimums, {})
    counts = scores.table.group_by("probe", "split").agg(pl.col("n").max())
    # A probe whose cells carry no n at all is not known to be small: it is left as it is.
    return Power(
        minimums, {(r["probe"], r["split"]): r["n"] for r in counts.iter_rows(named=True) if r["n"] is not None}
    )


def decided(scores: Index, power: Power) -> Index:
    """The results table as the report reads it: the cells of every probe below its minimum on a
    split keep their n but lose their mean and interval, with the reason in `too_few`."""
    notes = pl.DataFrame(
        [{"probe": p, "split": s, "too_few": power.too_few(p, s)} for p, s in power.underpowered()],
        schema={"probe": pl.String, "split": pl.String, "too_few": pl.String},
    )
    table = (
        scores.table.drop("too_few", strict=False)
        .with_row_index("_row")
        .join(notes, on=["probe", "split"], how="left")
        .sort("_row")  # the results table's own order, whatever order the join returns
    )
    masked = pl.col("too_few").is_not_null()
    table = table.with_columns(
        [pl.when(masked).then(None).otherwise(pl.col(c)).alias(c) for c in READ_COLUMNS if c in table.columns]
    )
    return Index(table.select([c for c in scores.table.columns if c != "too_few"] + ["too_few"]))


def too_few_cell(scores: Index, model: str, probe: str, statistic: str, label: str = "all") -> tuple[str, dict] | None:
    """(split, cell) on the first split (`Index.first`'s order) where the probe held too few examples
    for this score: what a table shows where `Index.first` finds nothing to read."""
    for split in showcase_order():
        cell = scores.get(model, probe, split, statistic, label)
        if cell and cell.get("too_few"):
            return split, cell
    return None


def left_out(scores: Index, model: str, probes: Iterable[str]) -> list[str]:
    """Which of `probes` a model's verdict could not read for too few examples, in words: "`probe`
    on split: too few examples (n=6, minimum 40)" (`scores` as `decided` gave it)."""
    if "too_few" not in scores.table.columns:
        return []
    wanted = list(dict.fromkeys(probes))
    rows = (
        scores.table.filter(
            (pl.col("model") == model) & pl.col("probe").is_in(wanted) & pl.col("too_few").is_not_null()
        )
        .select("probe", "split", "too_few")
        .unique()
        .iter_rows(named=True)
    )
    return sorted((f"`{r['probe']}` on {r['split']}: {r['too_few']}" for r in rows), key=lambda t: t)


def left_out_caveat(scores: Index, model: str, probes: Iterable[str]) -> str | None:
    """The verdict's caveat naming the deciding probes it left out for too few examples."""
    missing = left_out(scores, model, probes)
    if not missing:
        return None
    return (
        "Left out of this verdict for too few examples (each probe needs its minimum n on a split before "
        f"anything rests on it): {'; '.join(missing)}."
    )
