"""What the test files of several probes share: the small splits written for them and how each is
run. A split that tests of several probes at once read too stays in their file (tests/test_*.py)
and is imported from there."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
import test_evidence as evidence
import test_numeric_perturbations as templated
import test_numeric_probes as numeric
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tabprobe import schemas
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.probes.generation import generate

# ---------------------------------------------------------------- table probes: generated tables (hypothesis)

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)
keys = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=10).filter(
    lambda k: k.strip()
)
values = st.lists(st.one_of(text, st.text(min_size=200, max_size=400)), min_size=0, max_size=4)
rows = st.lists(st.builds(lambda k, v: Row(k.strip(), tuple(v)), keys, values), min_size=0, max_size=8)
categories = st.sampled_from(["Person", "City", None])


@st.composite
def split_tables(draw):
    """A target table and a few other tables of the split, sharing some keys and categories."""
    n = draw(st.integers(2, 5))
    tables = {f"T{i}": Table(f"T{i}", draw(keys), tuple(draw(rows)), draw(categories)) for i in range(n)}
    return tables["T0"], tables


def first_output(name, table, tables, seed):
    ctx = ProbeContext(rng=np.random.default_rng(seed), tables=tables)
    example = Example("dev:2", table.table_id, "A hypothesis.", "E")
    try:
        out = get_probe(name).apply(example, table, None, ctx)
    except NotApplicable:
        return None
    assert len(out) >= 1
    return out[0]


common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- numeric probes (test_numeric_probes.py)


def run(name, options=None, seed=3):
    out, coverage = generate(name, numeric.EXAMPLES, numeric.TABLES, seed=seed, options=options or {})
    return {r["orig_uid"]: r for r in out.to_pylist()}, coverage


# ---------------------------------------------------------------- templated comparisons (test_numeric_perturbations.py)


def many(name, seeds=range(25), options=None):
    """Every example the probe writes over many seeds: each relation and label shows up."""
    return [record for seed in seeds for record in templated.run(name, seed, options)[0]]


def value_of(text: str) -> Decimal:
    """A number as the table or the hypothesis writes it ("1,234", "42.7")."""
    return Decimal(text.replace(",", ""))


def comparison(record) -> tuple[str, Decimal, str, Decimal, str]:
    """(key, V as the new table writes it, relation, N, N as written), read off the example itself."""
    provenance = json.loads(record["provenance"])
    row = record["table"]["rows"][provenance["row"]]
    (cell,) = row["values"]
    v = value_of(re.match(templated.NUMBER, cell).group(0))
    relation, digits, decimals = templated.COMPARISON.search(record["hypothesis"]).groups()
    written = digits + (decimals or "")
    return row["key"], v, "less than" if relation == "fewer than" else relation, value_of(written), written


def changed_rows(record) -> list[str]:
    before = templated.TABLES[record["table_id"]].rows
    after = Table.from_arrow(record["table"]).rows
    assert len(before) == len(after)
    return [b.key for b, a in zip(before, after, strict=True) if b != a]


def gold_value(record) -> int:
    provenance = json.loads(record["provenance"])
    return int(templated.TABLES[record["table_id"]].rows[provenance["row"]].values[0].split()[0].replace(",", ""))


# ---------------------------------------------------------------- evidence probes, counterfactuals (test_evidence.py)

EXAMPLES = pa.table(
    {
        "uid": ["dev:2", "dev:3", "dev:4", "dev:5", "dev:6"],
        "table_id": ["T1", "T1", "T2", "T3", "T4"],
        "hypothesis": [
            "Ada Quill was born in 1901 and married Rui Vale.",
            "Quill won no prizes.",
            "Bo Tarn sings folk.",
            "The Grey Hours runs 46 minutes.",
            "Cy Moss married Lia Moss.",
        ],
        "label": ["E", "C", "E", "N", "E"],
    },
    schema=schemas.EXAMPLES,
)
# A poet with every key of Ada Quill's table (and one more): the only partner cf_row_swap can use.
POET2 = Table(
    "T4",
    "Cy Moss",
    (
        Row("Born", ("2 May 1920", "Porto, Portugal")),
        Row("Died", ("1 June 1990",)),
        Row("Occupation", ("Poet",)),
        Row("Spouse(s)", ("Lia Moss",)),
        Row("Awards", ("Moss Medal",)),
        Row("Website", ("moss.example",)),
    ),
    "Person",
)
TABLES = {**evidence.TABLES, "T4": POET2}
RELEVANT = {
    "dev:2": ("Born", "Spouse(s)"),
    "dev:3": ("Awards",),
    "dev:4": ("Genres",),
    "dev:5": ("Length",),
    "dev:6": ("Spouse(s)",),
}


@pytest.fixture(scope="module")
def docs():
    """The hypotheses parsed by the real spaCy model: the counterfactuals read how the split's
    hypotheses name each subject."""
    from tabprobe.data import parsing

    nlp = parsing.load_pipeline("auto")
    parsed = parsing.parse(
        nlp, EXAMPLES["hypothesis"].to_pylist(), EXAMPLES["uid"].to_pylist(), EXAMPLES["table_id"].to_pylist()
    )
    return {doc.user_data["uid"]: doc for doc in parsed.get_docs(nlp.vocab)}


def _records(name, relevant=RELEVANT, seed=4, docs=None):
    out, coverage = generate(name, EXAMPLES, TABLES, seed=seed, needs={"parse": docs, "relevance": relevant})
    return out.to_pylist(), coverage
