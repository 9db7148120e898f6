"""TabFact's part of the report (`Dataset.report`): its heading and intro, what its numbers rest on,
the splits its tables and verdicts read, and the section of the probes whose expected labels come
from executing the statements' human-written programs."""

from tabprobe.data.datasets import OwnSection, ReportPart

PROVENANCE = (
    "What the TabFact numbers rest on: the val and test statements and tables are TabFact's as released upstream "
    "(byte-identical; `simple_test` and `complex_test` are the two halves of its test set as upstream divides "
    "them); `bootstrap` holds the statements of val and test tables that come with a human-written program "
    "(bootstrap.json), kept where the program gives the statement's label on its original table, and each "
    "program probe's expected label is recomputed by this project's executor on the edited table; TabFact's "
    "train statements are reconstructed from a third party's copy, not the upstream file "
    "(../shared/tabfact/README.md): {trained}."
)
EXECUTED = (
    "These probes' expected labels come from executing the statement's human-written program (TabFact's "
    "bootstrap.json) on the edited table with this project's executor: a deleted record that a `count` needed "
    "makes the statement REFUTED, and the expected label says so. Only statements whose program gives their label "
    "on the original table are probed (split `bootstrap`); `tf_original` on the same statements is the unperturbed "
    "reference each drop is paired with. "
)

# How its verdicts read its probes (report/own_verdicts.py), as printed under them.
VERDICT_RULES = (
    "The TabFact verdicts read TabFact's probes with the same thresholds as the InfoTabS ones (rule 1 under the "
    "scorecard), each on the first split measured of {splits}: on simple statements a model that reads its table "
    "has the most accuracy to lose.",
    "Uses its table: the table removed (`tf_hypothesis_only`) and the gain over the hypothesis-only model trained "
    "on the same data (paired where the run scored it; otherwise the two accuracies on `tf_original`, counted only "
    "when their intervals do not overlap); another table (`tf_swapped_table`) decides only where those were not "
    "measured.",
    "Uses the right records: a clear accuracy drop when records the statement's program read are deleted "
    "(`relevant_record_deletion`) or one of their cells changed (`program_cell_update`), labels recomputed by "
    "executing the program, says no, and so does one when records it never read are deleted "
    "(`irrelevant_record_deletion`); no drop on the first says yes only where its accuracy on the unperturbed "
    "statements leads the majority class by {lead} points or more (a model that keeps every "
    "answer loses about half its lead). `program_record_deletion` (any record) is shown, not counted.",
    "Leans on hypothesis artifacts: the label-flipping statement edits (`tf_negation`, `tf_number_flip`, "
    "`tf_entity_flip`) read as the InfoTabS ones (a clear drop: yes; none, in both directions: no); the "
    "hypothesis-only model leans on them when its accuracy is clearly over the majority class.",
    "Leans on memorised knowledge: entities renamed consistently in table and statement (`tf_entity_rename`, "
    "the label kept) read as the counterfactual tables (a clear drop: yes; none: no).",
    "Chance on TabFact is the majority class of the statements scored; an InfoTabS model's NEUTRAL answers are "
    "read as REFUTED and their share is stated with its verdict.",
)

REPORT = ReportPart(
    # The test set's halves, then the rest.
    showcase_order=("simple_test", "complex_test", "test", "small_test", "val", "bootstrap"),
    title="TabFact: the same questions on relational tables",
    split_order=("simple_test", "complex_test", "bootstrap", "val", "test", "small_test", "train"),
    intro=(
        "TabFact (Chen et al., 2020): Wikipedia tables with a header and records, statements labelled ENTAILED or "
        "REFUTED. The same probes' questions, asked with edits written for its tables and statements.",
        PROVENANCE,
    ),
    # On simple statements (one record looked up) a model that reads its table has the most accuracy
    # to lose; on complex ones a model near chance cannot drop far. The program probes: bootstrap only.
    verdict_splits=("simple_test", "complex_test", "bootstrap"),
    verdict_rules=VERDICT_RULES,
    texts={
        # What a selected premise of its tables holds, in the premise-selection caveat of every verdict.
        "premise_selection": "of a TabFact table, the records and columns",
        "accuracy_title": "TabFact accuracy: simple and complex statements (`{baseline}`)",
        "accuracy": (
            "Accuracy on TabFact's unperturbed statements. `simple_test` and `complex_test` are the two halves of "
            "TabFact's test set: statements about a single record, and statements that count, compare, rank or "
            "aggregate over several. The two are different statements, so their difference is not paired. "
        ),
    },
    sections=(
        OwnSection(
            name="executed",
            title="TabFact probes labelled by executing programs (`bootstrap`)",
            intro=EXECUTED,
            caption="Accuracy against the label the program gives",
            splits=("bootstrap",),
        ),
    ),
)
