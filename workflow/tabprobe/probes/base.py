"""What a probe is: a function from one gold example to its perturbations, and how it is judged.

A probe module defines `PROBE = Probe(...)`; its dataset's registry (probes/<dataset>/registry.py)
holds one "module:attr" line per probe, and the probes shared by every dataset whose tables fit
(probes/shared/) are registered for each such dataset (`tabprobe.probes.REGISTRY`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

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
    table: Any  # of the dataset's table type (data/table_type.py)
    expected: str | None  # the expected label, or None when judged by transition rules
    provenance: Mapping[str, Any] = field(default_factory=dict)  # JSON-able record of the change


@dataclass
class ProbeContext:
    """Everything a probe may use besides the example itself.

    `rng` is seeded per (seed, probe, example), so an example's perturbation does not depend on
    which other examples or probes run. `tables` are all tables of the split (for probes that
    borrow rows or titles from other tables).
    """

    rng: np.random.Generator
    tables: Mapping[str, Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    # Built once per split and shared by all examples (e.g. an entity pool); only
    # deterministic functions of the split may be stored here.
    shared: dict = field(default_factory=dict)
    # The run's seed, for choices made once per split (e.g. which tables swap titles) rather than
    # per example (those use `rng`).
    seed: int = 0
    # What the probe's needs give it (`Probe.needs`, probes/needs.py), by need: for the whole split
    # ("parse": uid -> spaCy Doc of every hypothesis, "relevance": uid -> relevant row keys, ...).
    needs: Mapping[str, Any] = field(default_factory=dict)

    def need(self, name: str) -> Any:
        """What need `name` gives (the probe declares it in `Probe.needs`)."""
        if name not in self.needs:
            raise KeyError(f"no {name!r} in this probe's context: declare it in the probe's `needs`")
        return self.needs[name]


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


ApplyFn = Callable[[Example, Any, Any, ProbeContext], list[ProbeExample]]

# The numbers a verdict reads (tabprobe.report: verdicts of the paper's dataset, and of any other),
# by the question they bear on. A probe says which one it gives (`Probe.verdict_role`); the report
# finds its probes by these, never by name.
# Does the model use its table at all? The table taken away; a wrong table put in its place.
TABLE_REMOVED, WRONG_TABLE = "table_removed", "wrong_table"
# Does it use the right rows? The rows (records, cells) the hypothesis needs deleted or changed; its
# own evidence (the rows whose deletion alone moves it); rows it does not need deleted; any row deleted.
NEEDED_ROWS, OWN_EVIDENCE, OTHER_ROWS, ANY_ROWS = "needed_rows", "own_evidence", "other_rows", "any_rows"
# Does it lean on hypothesis artifacts? An edit of the hypothesis that flips the label (a dataset's
# own, read one by one; the paper's dataset pools its hypothesis edits into Table 4 by family).
LABEL_FLIP = "label_flip"
# Does it lean on what it memorised? Entities renamed consistently in table and hypothesis.
RENAMED = "renamed"
# In the order the verdicts and a dataset's scorecard read them.
VERDICT_ROLES = (TABLE_REMOVED, WRONG_TABLE, NEEDED_ROWS, OWN_EVIDENCE, OTHER_ROWS, ANY_ROWS, LABEL_FLIP, RENAMED)


@dataclass(frozen=True)
class Role:
    """The number a probe gives a verdict: which one (VERDICT_ROLES), what the edit is in the
    verdict's words ("table removed", "records the program read deleted"), and its column in the
    scorecard of a dataset's own part ("drop with the table removed"; "" : none)."""

    number: str
    reading: str
    scorecard: str = ""

    def __post_init__(self):
        if self.number not in VERDICT_ROLES:
            raise ValueError(f"verdict role {self.number!r}: not one of {', '.join(VERDICT_ROLES)}")


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
    # The inputs it reads beside the split's examples and tables, by name (probes/needs.py: each
    # need says which file per split it reads, which rule makes it, and how it is loaded into
    # `ProbeContext.needs`): "parse" (the hypotheses' spaCy parse, also handed to apply as `doc`),
    # "relevance" (which rows each hypothesis needs; the report names its source), and a
    # dataset's own (`Dataset.needs`: the hand-made counterfactuals, the statements' programs).
    needs: frozenset[str] = frozenset()
    # Hypothesis probes of paper section 4: whether the edit keeps or flips the gold label. The
    # report pools their examples into the two columns of paper Table 4 (one sampled
    # perturbation per gold example, as the paper does).
    label_change: Literal["preserved", "flipped"] | None = None
    # Where the report puts an expected-label probe: "hypothesis" (paper Table 4, by
    # label_change), "counterfactual" (paper Tables 7-8, by label_change), "premise_control"
    # (Gupta et al. 2020, Tables 3-4) or "numeric"; "" for the others.
    family: str = ""
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
    # The dataset whose examples it edits (data/datasets.py): set by the registry from the
    # dataset that registers it (its own probes, or the shared ones its table type fits).
    datasets: tuple[str, ...] = ()
    # What a schema cannot say (a range's low below its high): a function of the probe's options
    # returning (option, problem) pairs, run after the schemas.
    check_options: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None = None
    # The number it gives a verdict (Role), where it gives one: the report reads its probes by role.
    verdict_role: Role | None = None
    # The section of its dataset's own part of the report it goes in (`ReportPart.sections`, e.g. the
    # probes whose labels come from executing programs); "" : the shared sections, by family and judged_by.
    report_section: str = ""

    def __post_init__(self):
        if (self.judged_by == "transitions") != (self.transition_rule is not None):
            raise ValueError(f"probe {self.name}: a transition_rule is needed exactly when judged_by='transitions'")


@dataclass(frozen=True)
class SharedProbe:
    """A probe every dataset takes whose table type it is written for (probes/shared/): the
    registry registers it for each such dataset under the dataset's prefix ("original" for the
    dataset whose prefix is empty, "tf_original" for a dataset's "tf_"), with the texts the dataset
    gives it (its registry's `TEXTS`) over the defaults `make` writes."""

    name: str  # the name it is registered under, after a dataset's prefix
    table_types: tuple[str, ...]  # the table types it has an implementation for (data/table_type.py)
    # (dataset: data.datasets.Dataset, registered name) -> the Probe for that dataset
    make: Callable[[Any, str], Probe]
