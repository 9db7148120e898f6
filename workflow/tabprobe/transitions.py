"""Transition rules: which changes of prediction a table perturbation allows (docs/probes.md: the
catalogue's "judged by" column).

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
        from . import LABEL_NAMES, LABELS

        return ", ".join(LABEL_NAMES[lab] for lab in LABELS if lab in self.allowed[before])


def _rule(name, source, E, N, C):
    return TransitionRule(name, {"E": frozenset(E), "N": frozenset(N), "C": frozenset(C)}, source)


PAPER = "the paper's text (section 5)"
PROJECT = "this project's reading (the paper names only some prohibited transitions)"

RULES = {
    rule.name: rule
    for rule in [
        _rule("row_deletion", PAPER, E="EN", N="N", C="CN"),
        _rule("relevant_row_deletion", PAPER, E="N", N="N", C="N"),
        _rule("irrelevant_row_deletion", PAPER, E="E", N="N", C="C"),
        _rule("row_permutation", PAPER, E="E", N="N", C="C"),
        _rule("row_insertion", PAPER, E="E", N="ENC", C="C"),
        _rule("row_update", PROJECT, E="EC", N="NC", C="CN"),
        _rule("row_deletion_insertion", PROJECT, E="EN", N="ENC", C="CN"),
    ]
}
