"""Contract test over every registered probe, and what holds of several probes at once. What
each probe does is tested in its own file, tests/probes/test_probe_<name>.py."""

import json
from pathlib import Path

import pyarrow as pa
import pytest

import tabprobe
from tabprobe import LABELS, schemas
from tabprobe.data.infotabs.table import Row, Table
from tabprobe.probes import (
    REGISTRY,
    Example,
    NotApplicable,
    ProbeContext,
    ProbeExample,
    get_probe,
    invariants,
    module_path,
    source_files,
    transition_rules,
)
from tabprobe.probes.generation import generate
from tabprobe.seeding import seeded_rng, select_examples

PACKAGE = Path(tabprobe.__file__).resolve().parent

TABLES = {
    "T1": Table(
        "T1",
        "Ada Quill",
        (Row("Born", ("1901",)), Row("Occupation", ("Poet", "editor")), Row("Spouse(s)", ("Rui",))),
        "Person",
    ),
    "T2": Table("T2", "Río Verde", (Row("Length", ("42 km",)),), "River"),
    "T3": Table("T3", "Empty Box", (), None),
}
# Relevant rows of the fixture examples, as a relevance source would give them (dev:5's table
# has no rows, so nothing is relevant there).
RELEVANCE = {"dev:2": ("Occupation",), "dev:3": ("Spouse(s)",), "dev:4": ("Length",), "dev:5": ()}
EXAMPLES = pa.table(
    {
        "uid": ["dev:2", "dev:3", "dev:4", "dev:5"],
        "table_id": ["T1", "T1", "T2", "T3"],
        "hypothesis": [
            "Ada Quill was a poet.",
            "Ada Quill never married.",
            "The Río Verde is long.",
            "The box is empty.",
        ],
        "label": ["E", "C", "N", "N"],
    },
    schema=schemas.EXAMPLES,
)


def hand_made_counterfactuals() -> dict:
    """What the paper's annotators would have made of the fixture's ENTAIL and CONTRADICT
    examples: each table with one value edited so its label flips (tabprobe.data.infotabs.counterfactuals)."""
    from tabprobe.data.infotabs.counterfactuals import Counterfactual

    poet = TABLES["T1"].with_rows([Row("Born", ("1901",)), Row("Occupation", ("Painter",)), Row("Spouse(s)", ("Rui",))])
    single = TABLES["T1"].with_rows([Row("Born", ("1901",)), Row("Occupation", ("Poet", "editor"))])
    pairs = [
        Counterfactual("cf.tsv:2", "IA0", "T1", "Ada Quill was a poet.", "E", "T1_mod_1", poet, "C"),
        Counterfactual("cf.tsv:3", "IA1", "T1", "Ada Quill never married.", "C", "T1_mod_2", single, "E"),
    ]
    return {(p.table_id, p.hypothesis): [p] for p in pairs}


@pytest.fixture(scope="module")
def docs():
    """The fixture hypotheses parsed by the real spaCy model, for probes that read a parse."""
    from tabprobe.data import parsing

    nlp = parsing.load_pipeline("auto")
    parsed = parsing.parse(
        nlp, EXAMPLES["hypothesis"].to_pylist(), EXAMPLES["uid"].to_pylist(), EXAMPLES["table_id"].to_pylist()
    )
    return {doc.user_data["uid"]: doc for doc in parsed.get_docs(nlp.vocab)}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_probe_honours_the_contract(name, docs):
    probe = get_probe(name)
    assert probe.name == name and probe.description
    assert probe.judged_by in ("expected", "transitions", "evidence")
    if probe.judged_by == "transitions":
        assert probe.transition_rule is not None and probe.transition_rule.name == name
    docs = docs if probe.needs_parse else None
    relevance = RELEVANCE if probe.needs_relevance else None
    made = hand_made_counterfactuals() if probe.needs_human_counterfactuals else None
    ctx = ProbeContext(rng=seeded_rng(1, name), tables=TABLES, docs=docs, relevance=relevance, counterfactuals=made)
    for record in EXAMPLES.to_pylist():
        example = Example(**record)
        if example.label not in probe.labels:
            continue  # generate() never hands a probe a label it does not perturb
        try:
            out = probe.apply(example, TABLES[example.table_id], docs[example.uid] if docs else None, ctx)
        except NotApplicable as reason:
            assert str(reason)
            continue
        assert isinstance(out, list)
        for item in out:
            assert isinstance(item, ProbeExample) and isinstance(item.table, Table)
            assert (item.expected is None) == (probe.judged_by != "expected")
            assert item.expected is None or item.expected in LABELS
            json.dumps(item.provenance)  # must be JSON-able
            # what the probe promises of its output holds here (probes/invariants.py)
            assert invariants.breaches(invariants.of(probe), example, TABLES[example.table_id], item) == []
    # The generator produces the Parquet contract, deterministically.
    first, coverage = generate(name, EXAMPLES, TABLES, seed=7, docs=docs, relevance=relevance, counterfactuals=made)
    second, _ = generate(name, EXAMPLES, TABLES, seed=7, docs=docs, relevance=relevance, counterfactuals=made)
    assert first.schema.equals(schemas.PROBE_EXAMPLES)
    assert first.equals(second)
    assert coverage["gold"] == EXAMPLES.num_rows
    assert coverage["perturbed"] + sum(coverage["skipped"].values()) == EXAMPLES.num_rows
    # on these tables no perturbation breaks a promise of its probe (probes/invariants.py)
    assert coverage["dropped"] == {}
    assert set(first["orig_uid"].to_pylist()) <= set(EXAMPLES["uid"].to_pylist())
    if probe.one_per_gold:
        assert len(set(first["orig_uid"].to_pylist())) == first.num_rows  # one perturbation per gold example
    # Its rule inputs: its own module and what that imports from the package, all real files.
    sources = source_files(name)
    assert module_path(name) in sources and "probes/base.py" in sources
    assert all((PACKAGE / path).is_file() for path in sources)
    assert probe.family in ("", "hypothesis", "counterfactual", "premise_control", "numeric")
    # Only the probes pooled into paper Tables 4 and 7 say whether they keep or flip the label.
    assert (probe.label_change is not None) == (probe.family in ("hypothesis", "counterfactual"))
    assert probe.label_change is None or probe.judged_by == "expected"


def test_a_probe_depends_on_the_helpers_it_imports_and_no_others():
    assert "probes/hypothesis_edits/negation.py" in source_files("negation_flip")
    # one family of the parse-based edits, not the others
    assert "probes/hypothesis_edits/dates.py" not in source_files("negation_flip")
    assert "probes/table_edits.py" in source_files("row_deletion")
    assert not [f for f in source_files("row_deletion") if f.startswith("probes/hypothesis_edits/")]
    # num_words imports number_edits, which imports text_edits: followed transitively; the
    # parse-based edits (hypothesis_edits) are not among them.
    assert {"probes/number_edits.py", "probes/text_edits.py"} <= set(source_files("num_words"))
    assert not [f for f in source_files("num_words") if f.startswith("probes/hypothesis_edits/")]
    assert "probes/table_edits.py" not in source_files("dummy_premise")


def test_unknown_probe_suggests_a_close_name():
    with pytest.raises(KeyError, match="Did you mean 'row_deletion'"):
        get_probe("row_deletio")


def test_select_examples_is_seeded_ordered_and_split_specific():
    big = pa.table(
        {
            "uid": [f"dev:{i}" for i in range(2, 102)],
            "table_id": ["T1"] * 100,
            "hypothesis": ["h"] * 100,
            "label": ["E"] * 100,
        },
        schema=schemas.EXAMPLES,
    )
    a = select_examples(big, 10, seed=1, split="dev")
    assert a.num_rows == 10 and a.equals(select_examples(big, 10, seed=1, split="dev"))
    lines = [int(u.split(":")[1]) for u in a["uid"].to_pylist()]
    assert lines == sorted(lines)
    assert not a.equals(select_examples(big, 10, seed=2, split="dev"))
    assert select_examples(big, None, seed=1, split="dev").equals(big)


def test_transition_rules_cover_every_label():
    for rule in transition_rules().values():
        assert set(rule.allowed) == set(LABELS)
        assert all(allowed <= set(LABELS) and allowed for allowed in rule.allowed.values())
    deletion = transition_rules()["row_deletion"]
    assert deletion.is_valid("E", "N") and not deletion.is_valid("E", "C")
    assert deletion.is_valid("N", "N") and not deletion.is_valid("N", "E")
