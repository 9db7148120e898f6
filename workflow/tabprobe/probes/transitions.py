"""Transition rules: which changes of prediction a table perturbation allows (docs/probes.md: the
catalogue's "judged by" column). Each probe judged by transitions declares its rule in its own
module (`PROBE.transition_rule`).

Keys are the label the model predicted before the perturbation; values the labels it may
predict after. Anything else is an invalid transition.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TransitionRule:
    name: str
    allowed: dict[str, frozenset[str]]
    source: str  # where the rule comes from, stated in the report

    def is_valid(self, before: str, after: str) -> bool:
        return after in self.allowed[before]

    def allowed_after(self, before: str) -> str:
        """The labels allowed after `before`, named, in E, N, C order."""
        from tabprobe import LABEL_NAMES, LABELS

        return ", ".join(LABEL_NAMES[lab] for lab in LABELS if lab in self.allowed[before])


def transition_rule(name: str, source: str, E: str, N: str, C: str) -> TransitionRule:
    """A rule from the labels allowed after each label: `transition_rule("row_deletion", PAPER,
    E="EN", N="N", C="CN")`. Each table probe declares its own, in its module."""
    return TransitionRule(name, {"E": frozenset(E), "N": frozenset(N), "C": frozenset(C)}, source)


# Where a rule comes from, stated in the report.
PAPER = "the paper's text (section 5)"
PROJECT = "this project's reading (the paper names only some prohibited transitions)"
