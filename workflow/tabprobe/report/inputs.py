"""What the report is built from: the run's results table (`results.Index`, keyed by
model, probe, split, statistic and label) and `RunInfo`, what the report knows of the run beyond
its scores (models, coverage, relevance, inoculation and variance summaries, failing examples)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tabprobe import schemas
from tabprobe.data.datasets import get_dataset
from tabprobe.io import read_parquet
from tabprobe.probes import get_probe
from tabprobe.report import failures, verdict_terms
from tabprobe.report.blocks import ExamplesBlock
from tabprobe.report.plan import DatasetPlan, probe_dataset
from tabprobe.report.power import Power


@dataclass
class RunInfo:
    """What the report needs to know about the run beyond the scores."""

    splits: list[str]
    probes: list[str]
    models: dict[str, dict]  # name -> {premise, checkpoint, meta, fingerprint, truncated...}
    data_source: str
    seed: int
    scoring: dict
    coverage: list[dict]  # one per probe and split, with its cap (`limit`)
    relevance: dict[str, dict] = field(default_factory=dict)  # split -> find_relevant_rows summary
    # experiment -> score_inoculation's summary (chosen learning rate per size...), and the plan
    inoculation: dict[str, dict] = field(default_factory=dict)
    inoculation_plan: dict | None = None
    variance: dict[str, dict] = field(default_factory=dict)  # model -> collect_variance's summary
    unverified_flips: str = "exclude"  # whether label flips nobody checked are scored (tabprobe.probes.curation)
    # (probe, model) -> a few failing examples, shown under the probe's numbers
    examples: dict[tuple[str, str], ExamplesBlock] = field(default_factory=dict)
    verdicts: dict[str, verdict_terms.Verdict] = field(default_factory=dict)  # model -> what the run says of it
    # run.json's `min_examples` record (config.min_examples_record); empty: the schema's default for every probe
    min_examples: dict = field(default_factory=dict)
    # Each probe's n on each split against its minimum (report.power), set when the report is built
    power: Power | None = None
    # The dataset whose part of the report this is (report.plan): its probes, models, baseline and roles
    plan: DatasetPlan | None = None

    def of_part(self, plan: DatasetPlan) -> RunInfo:
        """The run as a dataset's part sees it: its probes, splits, models, coverage and failing examples."""
        return replace(
            self,
            splits=list(plan.splits),
            probes=list(plan.probes),
            models={m: info for m, info in self.models.items() if m in plan.models},
            coverage=[c for c in self.coverage if probe_dataset(c["probe"]) == plan.name],
            examples={key: block for key, block in self.examples.items() if probe_dataset(key[0]) == plan.name},
            plan=plan,
        )

    def shown_splits(self, probes: Iterable[str]) -> list[str]:
        """The splits a part's tables show for `probes`: the report's splits (config's order) where any
        of them has scores; where none of the report's splits has any (the report's splits are the paper
        dataset's, so another dataset's part, or a results table read on its own), every split with
        scores, in the part's order. A split outside the report's (train, read by inoculation under
        `full: true`) is not a column."""
        present = self.plan.splits_of(probes)
        return [s for s in self.splits if s in present] or present

    def examples_of(self, probe_names: Iterable[str], models: Iterable[str] | None = None) -> list[ExamplesBlock]:
        return [self.examples[(p, m)] for p in probe_names for m in (models or self.models) if (p, m) in self.examples]


EXAMPLES_SHOWN = 5  # failing examples per probe and model


def load_examples(
    showcase: Mapping[str, Mapping],
    models: Sequence[str],
    seed: int,
    root: str | Path = ".",
    unverified_flips: str = "exclude",
) -> dict[tuple[str, str], ExamplesBlock]:
    """A few failing examples of each probe for each model. `showcase` maps a probe to its split
    and its `showcase_inputs` files (relative to `root`)."""
    out: dict[tuple[str, str], ExamplesBlock] = {}
    # A split's examples and tables, read once: keyed by dataset too, as two datasets may name a split alike.
    split_data: dict[tuple[str, str], tuple[dict, dict]] = {}
    for probe_name, spec in showcase.items():
        dataset = get_dataset(probe_dataset(probe_name))
        split, files = spec["split"], {key: Path(root) / path for key, path in spec["files"].items()}
        key = (dataset.name, split)
        if key not in split_data:
            examples = read_parquet(files["examples"], schemas.EXAMPLES).to_pylist()
            split_data[key] = (
                {e["uid"]: e for e in examples},
                dataset.table_type.load_tables(read_parquet(files["tables"], dataset.table_type.tables)),
            )
        # The models that answered this probe: a model of another dataset only has no predictions here.
        for model in (m for m in models if f"predictions:{m}" in files):
            found, changes = failures.failing_examples(
                files, get_probe(probe_name), model, split, EXAMPLES_SHOWN, seed, split_data[key], unverified_flips
            )
            out[(probe_name, model)] = ExamplesBlock(probe_name, model, split, found, changes)
    return out
