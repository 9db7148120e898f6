"""The data contracts between stages (docs/layout.md, "Data contracts between stages"): one Arrow schema per stage.

Every reader checks the file it reads against one of these (`io.read_parquet`), so a stage
never works on data of the wrong shape.
"""

import pyarrow as pa

# results/data/{split}.parquet (results/data/<dataset>/{split}.parquet: data/datasets.py)
EXAMPLES = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),  # "{split}:{line in the TSV}"
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("hypothesis", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # E / N / C
    ]
)


# results/probes/{probe}/{split}.parquet: a probe's examples, each with the (perturbed) table the model
# sees, of its dataset's table type (data/infobox/table.py, data/relational/table.py: PROBE_EXAMPLES)
def probe_examples(table: pa.StructType) -> pa.Schema:
    return pa.schema(
        [
            pa.field("uid", pa.string(), nullable=False),
            pa.field("orig_uid", pa.string(), nullable=False),
            pa.field("table_id", pa.string(), nullable=False),
            pa.field("hypothesis", pa.string(), nullable=False),
            pa.field("label", pa.string(), nullable=False),  # gold label of the original example
            pa.field("probe", pa.string(), nullable=False),
            pa.field("table", table, nullable=False),  # the (perturbed) table the model sees
            pa.field("expected", pa.string()),  # expected label; null when judged by transition rules
            pa.field("provenance", pa.string(), nullable=False),  # JSON: what the probe changed
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
# the pooled, inoculation and controlled-variance scores), the dataset whose examples the probe
# edits (its registered name, data/datasets.py; the pooled, inoculation and controlled-variance
# scores are the paper dataset's), and the paper's value where it has one
RESULTS = pa.schema(
    list(SCORES)[:3]
    + [pa.field("dataset", pa.string(), nullable=False)]
    + list(SCORES)[3:]
    + [pa.field("paper", pa.float64())]
)

# results/relevance/{split}.parquet: which rows each hypothesis needs (tabprobe.data.relevance)
RELEVANCE = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("relevant_keys", pa.list_(pa.string()), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # "aligner" or "annotations:<file name>"
    ]
)


def relevant_keys(relevance: pa.Table) -> dict[str, tuple[str, ...]]:
    """uid -> relevant keys, from a RELEVANCE table (examples the source does not cover are absent).
    Here, not in tabprobe.data.relevance: the probes read the rows it found, and an edit to the aligner
    must re-run only the probes that read them (through the relevance files), not every probe."""
    return {uid: tuple(keys) for uid, keys in zip(relevance["uid"].to_pylist(), relevance["relevant_keys"].to_pylist())}
