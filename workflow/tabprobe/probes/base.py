"""What a probe is: a function from one gold example to its perturbations, and how it is judged.

A probe module defines `PROBE = Probe(...)`; the registry (`tabprobe.probes.REGISTRY`) holds
one "module:attr" line per probe and imports it only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from tabprobe.data.infobox.table import Table
from tabprobe.probes.transitions import TransitionRule


@dataclass(frozen=True)
class Example:
    """A gold example as a probe sees it."""

    uid: str
    table_id: str
    hypothesis: str
    label: str


@dataclass(frozen=True)
class ProbeExample:
    """One perturbed example: the (possibly changed) hypothesis and table, and how to judge it."""

    hypothesis: str
    table: Table
    expected: str | None  # the expected label, or None when judged by transition rules
    provenance: Mapping[str, Any] = field(default_factory=dict)  # JSON-able record of the change


@dataclass(frozen=True)
class ProgramFacts:
    """A statement's program (TabFact bootstrap.json, `tabprobe.data.tabfact.programs`) and what it read
    when executed on the ORIGINAL table: indices of its records (follow them through an edit with the
    edited table's `source_records`) and the names of the columns it named."""

    program: str
    records_read: tuple[int, ...] = ()
    columns_read: tuple[str, ...] = ()


@dataclass
class ProbeContext:
    """Everything a probe may use besides the example itself.

    `rng` is seeded per (seed, probe, example), so an example's perturbation does not depend on
    which other examples or probes run. `tables` are all tables of the split (for probes that
    borrow rows or titles from other tables).
    """

    rng: np.random.Generator
    tables: Mapping[str, Table]
    options: Mapping[str, Any] = field(default_factory=dict)
    # uid -> spaCy Doc for every hypothesis of the split (not only the capped subset), for
    # probes that draw substitutes from other examples; None unless the probe needs_parse.
    docs: Mapping[str, Any] | None = None
    # Built once per split and shared by all examples (e.g. an entity pool); only
    # deterministic functions of the split may be stored here.
    shared: dict = field(default_factory=dict)
    # uid -> keys of the rows the hypothesis needs (tabprobe.data.infotabs.relevance), for every example of the
    # split the relevance source covers; None unless the probe needs_relevance.
    relevance: Mapping[str, tuple[str, ...]] | None = None
    # The run's seed, for choices made once per split (e.g. which tables swap titles) rather than
    # per example (those use `rng`).
    seed: int = 0
    # (table id, hypothesis) -> the paper's hand-made counterfactuals of that example
    # (tabprobe.data.infotabs.counterfactuals); None unless the probe needs_human_counterfactuals.
    counterfactuals: Mapping[tuple[str, str], Any] | None = None
    # uid -> the example's human-written program and the evidence it read on the original table
    # (TabFact's bootstrap split); None unless the probe needs_programs.
    programs: Mapping[str, ProgramFacts] | None = None


class NotApplicable(Exception):
    """Raised by a probe that cannot perturb this example; the message is counted in coverage."""


@dataclass(frozen=True)
class PaperNumbers:
    """What the paper printed for a probe (RoBERTa-large, Table as a Paragraph), shown beside the
    run's numbers in the report and the results table: where (its figure and table) and, for a
    probe judged by transitions, the invalid-transition % by label first predicted and split."""

    figure: str
    table: str
    invalid_transition_pct: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def as_reference(self) -> dict:
        """The form the report's evidence part reads: figure, table and values by label."""
        return {"figure": self.figure, "table": self.table, "values": self.invalid_transition_pct}


ApplyFn = Callable[[Example, Table, Any, ProbeContext], list[ProbeExample]]


@dataclass(frozen=True)
class Probe:
    name: str
    description: str
    apply: ApplyFn
    # "expected": each example carries the label it should get; "transitions": judged by
    # comparing predictions before and after, by the probe's own `transition_rule`;
    # "evidence": the rows whose deletion moves the model's prediction are its evidence, compared
    # with the relevance source (paper section 5.3).
    judged_by: Literal["expected", "transitions", "evidence"]
    transition_rule: TransitionRule | None = None
    paper_reference: str = ""
    # The paper's numbers for this probe, where it printed any (the report sets them beside the run's).
    paper_numbers: PaperNumbers | None = None
    # Which gold labels the probe perturbs (the paper skips NEUTRAL for hypothesis probes).
    labels: frozenset[str] = frozenset({"E", "N", "C"})
    # True for probes that read the hypothesis's spaCy parse (`doc` in apply); the workflow then
    # parses the split once (rule parse_hypotheses) and hands every such probe the same parse.
    needs_parse: bool = False
    # Hypothesis probes of paper section 4: whether the edit keeps or flips the gold label. The
    # report pools their examples into the two columns of paper Table 4 (one sampled
    # perturbation per gold example, as the paper does).
    label_change: Literal["preserved", "flipped"] | None = None
    # Where the report puts an expected-label probe: "hypothesis" (paper Table 4, by
    # label_change), "counterfactual" (paper Tables 7-8, by label_change), "premise_control"
    # (InfoTabS paper Tables 3-4) or "numeric"; "" for the others.
    family: str = ""
    # True for probes that read which rows the hypothesis needs (ctx.relevance); the workflow then
    # hands them the split's relevance (rule find_relevant_rows) and the report names its source.
    needs_relevance: bool = False
    # True for probes whose edits people made (the paper's hand-made counterfactual tables,
    # ctx.counterfactuals): the workflow hands them the split's set (rule generate_probe), and the
    # report and run record say their numbers rest on human-made data.
    needs_human_counterfactuals: bool = False
    # False keeps every perturbation of a gold example instead of sampling one (uids
    # "<uid>/<probe>/<i>"): evidence selection deletes each row in turn.
    one_per_gold: bool = True
    # What the probe promises about every example it writes (`invariants.Invariant`s), checked
    # on each one by generate_probe: a breach is dropped, counted and logged. None: the default
    # promise that the table or the hypothesis changed (probes/invariants.py).
    invariants: tuple | None = None
    # The options it reads from ctx.options (config: `probes: {<name>: {<option>: value}}`), each a
    # JSON schema (type, range, default, description): the config check refuses an option not
    # declared here ("did you mean") and a value outside its schema, before any job runs.
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # The datasets whose tables and labels it is written for (data/datasets.py): an infobox probe
    # edits key -> values rows and knows the E/N/C label set.
    datasets: tuple[str, ...] = ("infotabs",)
    # What a schema cannot say (a range's low below its high): a function of the probe's options
    # returning (option, problem) pairs, run after the schemas.
    check_options: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None = None
    # True for probes that execute the example's program (ctx.programs): they recompute the expected
    # label on the edited table and apply only to examples that come with a program.
    needs_programs: bool = False

    def __post_init__(self):
        if (self.judged_by == "transitions") != (self.transition_rule is not None):
            raise ValueError(f"probe {self.name}: a transition_rule is needed exactly when judged_by='transitions'")
