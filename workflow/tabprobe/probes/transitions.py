"""Transition rules: which changes of prediction a table perturbation allows (docs/probes.md: the
catalogue's "judged by" column). Each probe judged by transitions declares its rule in its own
module (`PROBE.transition_rule`).

Keys are the label the model predicted before the perturbation; values the labels it may
predict after. Anything else is an invalid transition. A rule for a two-label dataset (a fact-checking
one's ENTAILED / REFUTED read as E / C) has the keys E and C only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class TransitionRule:
    name: str
    allowed: dict[str, frozenset[str]]
    source: str  # where the rule comes from, stated in the report

    def is_valid(self, before: str, after: str) -> bool:
        return after in self.allowed[before]

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels the rule is stated over, in E, N, C order (E, C for a two-label rule)."""
        from tabprobe import LABELS

        return tuple(lab for lab in LABELS if lab in self.allowed)

    def allowed_after(self, before: str, names: Mapping[str, str] | None = None) -> str:
        """The labels allowed after `before`, named (by `names`, a dataset's; the three-way names
        where not given), in E, N, C order."""
        from tabprobe import LABEL_NAMES

        return ", ".join((names or LABEL_NAMES)[lab] for lab in self.labels if lab in self.allowed[before])

    @property
    def demands_a_move(self) -> bool:
        """Whether it forbids some label from staying put (staying is then itself a failure)."""
        return any(lab not in self.allowed[lab] for lab in self.labels)


def transition_rule(name: str, source: str, E: str, N: str | None = None, C: str = "") -> TransitionRule:
    """A rule from the labels allowed after each label: `transition_rule("row_deletion", PAPER,
    E="EN", N="N", C="CN")`; over two labels, N left out: `transition_rule(
    "record_permutation", PROJECT, E="E", C="C")`. Each table probe declares its own, in its module."""
    if not C:
        raise ValueError(f"transition rule {name}: say which labels may follow C (C=...)")
    allowed = {"E": frozenset(E), "C": frozenset(C)}
    if N is not None:
        allowed = {"E": allowed["E"], "N": frozenset(N), "C": allowed["C"]}
    else:
        stray = sorted((set(E) | set(C)) - {"E", "C"})
        if stray:
            raise ValueError(f"transition rule {name}: a two-label rule (no N=) allows only E and C, not {stray}")
    return TransitionRule(name, allowed, source)


# Where a rule comes from, stated in the report.
PAPER = "the paper's text (section 5)"
PROJECT = "this project's reading (the paper names only some prohibited transitions)"
