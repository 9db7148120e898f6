"""What the report's paper sections say of InfoTabS's probes by name (`ReportPart.texts`): the
premise controls, the numeric probes' template perturbations, the relevant and irrelevant row
deletions, and the paper's hand-made counterfactuals. The report's modules name no probe: the
paragraphs that must are InfoTabS's."""

REPORT_TEXTS = {
    # Under "Premise controls (InfoTabS paper Tables 3 and 4)", before the paired drop is explained.
    "premise_controls": (
        "The hypothesis with no premise (`hypothesis_only`), a constant uninformative table "
        "(`dummy_premise`, 'to be or not to be'), or another table of the split (`swapped_table`), "
        "scored against the gold label. A model that reads its table should fall towards chance "
        "(33.3) and lose more than a model that guesses from the hypothesis. The paper's rows are "
        "RoBERTa-large models *trained* with such premises (InfoTabS Tables 3-4): the accuracy a "
        "premise-free model reaches, the baseline the InfoTabS authors say every model must beat. "
    ),
    # Under "Numeric probes", before the paired drop is explained.
    "numeric": (
        "Rewrites that keep the label (numbers as words, integers as decimals, 'N (not M)' in the "
        "table, distractor numeric rows: numerical-qa-robustness section 4.2) and templated "
        "comparisons whose label a rule computes (diversify-your-datasets section 3), scored "
        "against the expected label. The template's own perturbations (numerical-qa-robustness's Noise: "
        "`num_noise`, a one-digit fraction on the cell's and the hypothesis's numbers; Distribution: "
        "`num_distribution`, both moved above 500; Logic: `num_logic`, another relation on the same numbers, "
        "relabelled by rule) replace the hypothesis as `num_comparative` does: read them beside "
        "`num_comparative`, not beside `original`, whose hypotheses they do not keep. "
    ),
    # Under "Evidence", where the run has probes of relevant rows judged by transitions.
    "row_deletions": (
        "Deleting the relevant rows (`relevant_row_deletion`, paper Figure 4 / Table 6) must "
        "turn every prediction NEUTRAL; deleting an irrelevant row (`irrelevant_row_deletion`, "
        "Figure 10 / Table 16) must change none. Their invalid-transition tables follow with "
        "the other table probes."
    ),
    # Under the counterfactuals, where the run has the paper's hand-made set.
    "human_counterfactuals": (
        "`cf_human` is the paper's own hand-made set: annotators edited a table so that an ENTAIL hypothesis "
        "becomes CONTRADICT or the reverse, the hypothesis kept (utahnlp/table_probing, commit 2faf898, checked "
        "against the release's checksums unless `counterfactuals_verify: false`). Every pair of the release is used "
        "(α1 1,127: E→C 576, C→E 551; train 1,109: E→C 567, C→E 542), fewer where a cap or `original`'s cap "
        "leaves gold examples out (the coverage table says how many). The paper reports 942 (α1) and 885 (train) "
        "after the annotators' cross-check of each other's labels (86.57% and 88.45% agreed), which the release "
        "does not mark: the n here is larger and includes the pairs that check dropped. Machine-made "
        "counterfactuals keep the label and sit in the preserved column; they are never pooled with these."
    ),
}
