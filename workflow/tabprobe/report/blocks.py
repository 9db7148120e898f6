"""The pieces a report is made of: sections holding paragraphs, tables of numbers, figures and
failing examples. Content is built once from these and rendered to HTML and Markdown
(`report.render`), so the two never disagree."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tabprobe.probes.diff import ExampleChange
from tabprobe.report.failures import Failures


@dataclass(frozen=True)
class Stat:
    """A number as the report shows it: mean (std) [interval] n, and the paper's value beside it.
    Every score this run computed carries its n and its bootstrap interval; a paper value or an
    average over cells has neither."""

    mean: float | None
    std: float | None = None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    paper: float | None = None
    signed: bool = False  # a difference (drop): shown with its sign
    # "too few examples (n=6, minimum 40)": a probe below its minimum n, shown in place of its number
    # (report.power), which nothing in the report reads.
    too_few: str | None = None

    @classmethod
    def of(cls, score: Mapping | None, paper: float | None = None, signed: bool = False) -> Stat:
        """From a `schemas.SCORES` row (None: no value)."""
        if score is not None and score.get("too_few"):
            return cls(None, n=score["n"], paper=paper, signed=signed, too_few=score["too_few"])
        if score is None or score["mean"] is None:
            return cls(None, n=score["n"] if score else None, paper=paper, signed=signed)
        return cls(score["mean"], score["std"], score["ci_low"], score["ci_high"], score["n"], paper, signed)

    @classmethod
    def reference(cls, value: float | tuple[float, float] | None) -> Stat:
        """A paper's number: a value, or (mean, std)."""
        if isinstance(value, tuple):
            return cls(*value)
        return cls(value)

    @property
    def shown(self) -> bool:
        """Whether the cell says something: a number, or that there were too few examples for one."""
        return self.mean is not None or self.too_few is not None

    @property
    def value(self) -> str:
        if self.too_few:
            return self.too_few
        if self.mean is None:
            return "–"
        return f"{self.mean:+.2f}" if self.signed else f"{self.mean:.2f}"

    @property
    def interval(self) -> str:
        if self.low is None or self.high is None:
            return ""
        return f"[{self.low:+.1f}, {self.high:+.1f}]" if self.signed else f"[{self.low:.1f}, {self.high:.1f}]"

    @property
    def paper_text(self) -> str:
        return f"paper {self.paper:.2f}" if self.paper is not None else ""

    def text(self) -> str:
        """One line: `54.83 (1.20) [52.1, 57.3] n=40 · paper 74.88`."""
        parts = [self.value]
        if self.mean is not None and self.std is not None:
            parts.append(f"({self.std:.2f})")
        if self.interval:
            parts.append(self.interval)
        if self.n is not None and (self.mean is not None or self.n == 0) and not self.too_few:
            parts.append(f"n={self.n}")
        text = " ".join(parts)
        return f"{text} · {self.paper_text}" if self.paper_text else text

    def __str__(self) -> str:
        return self.text()


Cell = str | Stat


@dataclass
class TableBlock:
    header: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass
class Figure:
    svg: str
    caption: str
    # Where the figure is also written as a file of its own (results/report/figures/<path>), for
    # `snakemake --report`: "<dimension>/<model>/<name>.svg"; empty for figures kept inline only.
    path: str = ""


@dataclass
class ExamplesBlock:
    """A handful of failing examples of one probe for one model."""

    probe: str
    model: str
    split: str
    failures: Failures
    changes: list[ExampleChange]


@dataclass
class VerdictBlock:
    """What the run says of one model (tabprobe.report.verdicts), with the numbers it rests on."""

    verdict: Any  # verdict_terms.Verdict


@dataclass
class Alert:
    """A warning the reader must not miss (an untrained model, say)."""

    text: str


@dataclass
class Section:
    title: str
    blocks: list[Any] = field(
        default_factory=list
    )  # str (paragraph), TableBlock, Figure, ExamplesBlock, Alert, VerdictBlock
    level: int = 2  # 2: a part of the report (a paper dimension); 3: a section inside it
    anchor: str = ""

    def __post_init__(self):
        if not self.anchor:
            self.anchor = re.sub(r"[^a-z0-9]+", "-", self.title.lower().replace("`", "")).strip("-")[:60]
