"""The numeric probes (numerical-qa-robustness, diversify-your-datasets) and the controlled-variance
experiment: accuracy by number range after fine-tuning on one range."""

from __future__ import annotations

from ..results import Index
from ..variance import TEST_SPLIT
from .blocks import Section, Stat, TableBlock
from .inputs import RunInfo
from .tables import DROP_EXPLAINED, probe_family_section


def numeric_section(scores: Index, run: RunInfo) -> Section | None:
    return probe_family_section(
        scores,
        run,
        "numeric",
        "Numeric probes",
        "Rewrites that keep the label (numbers as words, integers as decimals, 'N (not M)' in the "
        "table, distractor numeric rows: numerical-qa-robustness section 4.2) and templated "
        "comparisons whose label a rule computes (diversify-your-datasets section 3), scored "
        "against the expected label. The template's own perturbations (numerical-qa-robustness's Noise: "
        "`num_noise`, a one-digit fraction on the cell's and the hypothesis's numbers; Distribution: "
        "`num_distribution`, both moved above 500; Logic: `num_logic`, another relation on the same numbers, "
        "relabelled by rule) replace the hypothesis as `num_comparative` does: read them beside "
        "`num_comparative`, not beside `original`, whose hypotheses they do not keep. " + DROP_EXPLAINED,
        "Accuracy (mean (std), n; paired drop: lower is better, a drop means the rewrite misled it)",
    )


def variance_section(scores: Index, run: RunInfo) -> Section | None:
    """Controlled variance (diversify-your-datasets section 3): accuracy by number range after
    fine-tuning on one range, each repeat, and the mean and spread over the repeats."""
    if not run.variance:
        return None
    section = Section("Controlled variance: number ranges (diversify-your-datasets section 3)")
    for model, summary in run.variance.items():
        section.blocks.append(
            f"`{model}` fine-tuned on `num_comparative` examples ('The {{key}} of {{title}} is more than / less than / exactly "
            f"N', labelled by rule) from train tables whose numbers lie in {summary['train_range']}, then tested on such "
            f"examples from alpha1 tables in each range; {summary['repeats']} repeats, each with its own examples, numbers "
            "and training subset. A model that learned to compare numbers does as well on every range; the paper's BERT "
            "stayed below 70% on ranges it was not trained on. Cells: mean over the repeats (standard deviation) "
            "[lowest, highest]; each repeat's own accuracy, with its interval over the samplings, below."
        )
        rows = []
        for ranges in summary["ranges"]:
            label = ranges["range"]
            cells = [label + (" (trained on)" if label == summary["train_range"] else "")]
            for when in ("before", "after"):
                s = ranges[when]
                cells.append(
                    "–"
                    if s["mean"] is None
                    else f"{s['mean']:.2f}"
                    + (f" ({s['std']:.2f})" if s["std"] is not None else "")
                    + f" [{s['min']:.2f}, {s['max']:.2f}] over {s['repeats']}"
                )
            rows.append(cells)
        section.blocks.append(
            TableBlock(
                ["Test range", "Before fine-tuning", "After fine-tuning on " + summary["train_range"]],
                rows,
                caption=f"Model {model}: accuracy by number range",
            )
        )
        repeats = sorted(scores.labels(f"{model}.cv"), key=lambda label: int(label[1:]))  # r1, r2, ...
        per_repeat = []
        for label in (r["range"] for r in summary["ranges"]):
            cells = [label]
            for repeat in repeats:
                cells.append(
                    Stat.of(
                        scores.get(
                            model=f"{model}.cv",
                            probe=f"num_comparative[{label}]",
                            split=TEST_SPLIT,
                            statistic="accuracy",
                            label=repeat,
                        )
                    )
                )
            per_repeat.append(cells)
        section.blocks.append(
            TableBlock(
                ["Test range"] + [f"repeat {r[1:]}" for r in repeats],
                per_repeat,
                caption=f"Model {model} after fine-tuning, each repeat",
            )
        )
    return section
