"""The data contracts between stages (docs/layout.md, "Data contracts between stages"): one Arrow schema per stage.

Every reader checks the file it reads against one of these (`io.read_parquet`), so a stage
never works on data of the wrong shape.
"""

import pyarrow as pa

ROW = pa.struct([pa.field("key", pa.string(), nullable=False), pa.field("values", pa.list_(pa.string()))])

TABLE_FIELDS = [
    pa.field("table_id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("rows", pa.list_(ROW), nullable=False),
    # Null when the dataset gives no category for the table.
    pa.field("category", pa.string()),
]
TABLE = pa.struct(TABLE_FIELDS)

# results/data/{split}.tables.parquet
TABLES = pa.schema(TABLE_FIELDS)

# TabFact's relational table (tabprobe.data.tabfact.table.RelationalTable): a header and records.
# Here, not in data/tabfact/: every stage's contracts live in this module, below the datasets.
RELATIONAL_TABLE_FIELDS = [
    pa.field("table_id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),  # the caption ("none" where TabFact gives none)
    pa.field("header", pa.list_(pa.string()), nullable=False),
    pa.field("records", pa.list_(pa.list_(pa.string())), nullable=False),
    # Where each record stood in the original table; null for a record a probe inserted.
    pa.field("source_records", pa.list_(pa.int64()), nullable=False),
]
RELATIONAL_TABLE = pa.struct(RELATIONAL_TABLE_FIELDS)

# results/data/{split}.tables.parquet of a relational dataset (TabFact)
RELATIONAL_TABLES = pa.schema(RELATIONAL_TABLE_FIELDS)

# results/data/{split}.parquet
EXAMPLES = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),  # "{split}:{line in the TSV}"
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("hypothesis", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # E / N / C
    ]
)

# results/probes/{probe}/{split}.parquet
PROBE_EXAMPLES = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("orig_uid", pa.string(), nullable=False),
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("hypothesis", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # gold label of the original example
        pa.field("probe", pa.string(), nullable=False),
        pa.field("table", TABLE, nullable=False),  # the (perturbed) table the model sees
        pa.field("expected", pa.string()),  # expected label; null when judged by transition rules
        pa.field("provenance", pa.string(), nullable=False),  # JSON: what the probe changed
    ]
)

# results/probes/{probe}/{split}.parquet of a relational dataset: the same columns, the table relational
RELATIONAL_PROBE_EXAMPLES = pa.schema(
    [field.with_type(RELATIONAL_TABLE) if field.name == "table" else field for field in PROBE_EXAMPLES]
)

# results/data/bootstrap.programs.parquet: TabFact's human-written programs (bootstrap.json) kept for
# the examples of the bootstrap split, and the evidence each read on the original table
PROGRAMS = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),  # the example's uid
        pa.field("program", pa.string(), nullable=False),  # as written, with its `=True` suffix
        pa.field("records_read", pa.list_(pa.int64()), nullable=False),
        pa.field("columns_read", pa.list_(pa.string()), nullable=False),
    ]
)

# results/predictions/{model}/{probe}/{split}.parquet
PREDICTIONS = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("orig_uid", pa.string(), nullable=False),
        pa.field("pred", pa.string(), nullable=False),
        pa.field("probs", pa.list_(pa.float32()), nullable=False),  # E, N, C order
        pa.field("model_fingerprint", pa.string(), nullable=False),
        # hash of the tokens the model saw: equal digests for a probe example and its original
        # mean the perturbation was invisible to the model (e.g. a row past the max_length cut)
        pa.field("input_digest", pa.string(), nullable=False),
    ]
)

# A served model's prediction (tabprobe.models.endpoint) whose answer gave no label: never read
# as one, it is wrong wherever a label is expected and counted apart (statistic `unparsed_pct`).
# Its probs are all 0.
UNPARSED = "?"

# results/predictions/{model}/{probe}/{split}.answers.parquet: what a served model answered, beside
# its predictions (one row per prediction, in their order)
SERVED_ANSWERS = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        # sha256 of each request the prediction rests on (one, or one per label), the cache's keys
        pa.field("request_digests", pa.list_(pa.string()), nullable=False),
        pa.field("answer", pa.string()),  # the generated text as it came (null: prompt_logprobs generates none)
        pa.field("parsed", pa.bool_(), nullable=False),  # whether the answer gave a label
        pa.field("thinking", pa.string()),  # a reasoning model's thinking, kept out of the parse
        pa.field("missing_verbalisers", pa.list_(pa.string()), nullable=False),  # first_token: labels not in the top-k
    ]
)

# results/scores/{model}/{probe}/{split}.parquet
SCORES = pa.schema(
    [
        pa.field("model", pa.string(), nullable=False),
        pa.field("probe", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("statistic", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # E / N / C, or "all"
        pa.field("mean", pa.float64()),
        pa.field("std", pa.float64()),
        pa.field("ci_low", pa.float64()),
        pa.field("ci_high", pa.float64()),
        pa.field("n", pa.int64(), nullable=False),
    ]
)

# results/results.parquet: every score of the run (SCORES of all models, probes and splits, with
# the pooled, inoculation and controlled-variance scores), and the paper's value where it has one
# the paper's value where it has one, and the dataset whose examples the probe edits (infotabs,
# tabfact; the pooled, inoculation and controlled-variance scores are InfoTabS's)
RESULTS = pa.schema(
    list(SCORES)[:3]
    + [pa.field("dataset", pa.string(), nullable=False)]
    + list(SCORES)[3:]
    + [pa.field("paper", pa.float64())]
)

# results/relevance/{split}.parquet: which rows each hypothesis needs (tabprobe.data.infotabs.relevance)
RELEVANCE = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("relevant_keys", pa.list_(pa.string()), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # "aligner" or "annotations:<file name>"
    ]
)


# What a stage that reads either dataset's tables accepts: InfoTabS's infoboxes or TabFact's
# relational tables (data/tables.py turns either into its table type).
ANY_TABLES = (TABLES, RELATIONAL_TABLES)
ANY_PROBE_EXAMPLES = (PROBE_EXAMPLES, RELATIONAL_PROBE_EXAMPLES)


def relevant_keys(relevance: pa.Table) -> dict[str, tuple[str, ...]]:
    """uid -> relevant keys, from a RELEVANCE table (examples the source does not cover are absent).
    Here, not in tabprobe.data.infotabs.relevance: the probes read the rows it found, and an edit to the aligner
    must re-run only the probes that read them (through the relevance files), not every probe."""
    return {uid: tuple(keys) for uid, keys in zip(relevance["uid"].to_pylist(), relevance["relevant_keys"].to_pylist())}
