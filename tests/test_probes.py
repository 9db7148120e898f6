"""Contract test over every registered probe, and what holds of several probes at once. What
each probe does is tested in its own file, tests/probes/test_probe_<name>.py."""

import json
from pathlib import Path

import pyarrow as pa
import pytest

import tabprobe
from tabprobe import LABELS, schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tabfact.programs import execute
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
from tabprobe.probes.tabfact.needs import ProgramFacts
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


# TabFact: relational tables (a header and records), two labels, and human-written programs for
# some statements (the bootstrap split), for the probes whose datasets are ("tabfact",). 2-2 has
# 2-1's header (a donor of records); 2-3 has a single record.
GAMES = ("week", "opponent", "result", "attendance")
TF_TABLES = {
    "2-1.html.csv": RelationalTable(
        "2-1.html.csv",
        "1990 season",
        GAMES,
        (
            ("1", "bears", "w 21 - 3", "60000"),
            ("2", "lions", "l 10 - 17", "55000"),
            ("3", "packers", "w 14 - 7", "70000"),
            ("4", "lions", "w 30 - 6", "52000"),
        ),
    ),
    "2-2.html.csv": RelationalTable(
        "2-2.html.csv", "1991 season", GAMES, (("1", "vikings", "l 3 - 9", "40000"), ("2", "rams", "w 7 - 0", "45000"))
    ),
    "2-3.html.csv": RelationalTable("2-3.html.csv", "roster", ("player", "team"), (("ann", "reds"),)),
}
TF_EXAMPLES = pa.table(
    {
        "uid": ["tf:0", "tf:1", "tf:2", "tf:3", "tf:4", "tf:5", "tf:6"],
        "table_id": ["2-1.html.csv"] * 5 + ["2-3.html.csv", "2-1.html.csv"],
        "hypothesis": [
            "the bears played in week 1",  # lookup
            "the lions were played 2 times",  # aggregate
            "the packers had the highest attendance",  # superlative
            "the packers played in week 2",  # lookup, refuted
            "the first game was against the bears",  # ordinal
            "ann played for the reds",  # lookup, a one-record table
            "the packers be the opponent in week 3",  # lookup in TabFact's lemmatised form ("be")
        ],
        "label": ["E", "E", "E", "C", "E", "E", "E"],
    },
    schema=schemas.EXAMPLES,
)
TF_PROGRAM_TEXTS = {
    "tf:0": "eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True",
    "tf:1": "eq{count{filter_eq{all_rows; opponent; lions}}; 2}=True",
    "tf:2": "eq{hop{argmax{all_rows; attendance}; opponent}; packers}=True",
    "tf:3": "eq{hop{filter_eq{all_rows; opponent; packers}; week}; 2}=False",
}


def tabfact_programs() -> dict:
    """uid -> ProgramFacts, as the bootstrap split's programs file gives them: the program and what it
    read when executed on the original table."""
    tables = {r["uid"]: TF_TABLES[r["table_id"]] for r in TF_EXAMPLES.to_pylist()}
    facts = {}
    for uid, program in TF_PROGRAM_TEXTS.items():
        outcome = execute(program, tables[uid].header, tables[uid].records)
        facts[uid] = ProgramFacts(program, outcome.records_read, outcome.columns_read)
    return facts


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
    if probe.datasets == ("tabfact",):
        honours_the_tabfact_contract(probe)
        return
    docs = docs if "parse" in probe.needs else None
    relevance = RELEVANCE if "relevance" in probe.needs else None
    made = hand_made_counterfactuals() if "human_counterfactuals" in probe.needs else None
    ctx = ProbeContext(
        rng=seeded_rng(1, name),
        tables=TABLES,
        needs={"parse": docs, "relevance": relevance, "human_counterfactuals": made},
    )
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
    first, coverage = generate(
        name, EXAMPLES, TABLES, seed=7, needs={"parse": docs, "relevance": relevance, "human_counterfactuals": made}
    )
    second, _ = generate(
        name, EXAMPLES, TABLES, seed=7, needs={"parse": docs, "relevance": relevance, "human_counterfactuals": made}
    )
    assert first.schema.equals(infobox.PROBE_EXAMPLES)
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


def tabfact_outputs(probe, seed: int) -> dict:
    """uid -> the probe's examples of each TabFact fixture example, or the NotApplicable reason."""
    programs = tabfact_programs() if "programs" in probe.needs else None
    shared: dict = {}
    out = {}
    for record in TF_EXAMPLES.to_pylist():
        example = Example(**record)
        if example.label not in probe.labels:
            continue
        ctx = ProbeContext(
            rng=seeded_rng(seed, probe.name, example.uid), tables=TF_TABLES, shared=shared, needs={"programs": programs}
        )
        try:
            out[example.uid] = probe.apply(example, TF_TABLES[example.table_id], None, ctx)
        except NotApplicable as reason:
            out[example.uid] = str(reason)
    return out


def honours_the_tabfact_contract(probe):
    """The contract of a TabFact probe: relational tables out, its invariants kept, TabFact's two labels,
    JSON-able provenance, every example perturbed or skipped with a reason, and the same output from
    the same seed. (generate() writes InfoTabS's table struct; the TabFact Parquet contract is the
    workflow's, checked where it is wired.)"""
    assert probe.labels <= {"E", "C"}
    if probe.transition_rule is not None:
        assert set(probe.transition_rule.allowed) == {"E", "C"}
    first = tabfact_outputs(probe, 7)
    assert first == tabfact_outputs(probe, 7)  # deterministic
    by_uid = {r["uid"]: Example(**r) for r in TF_EXAMPLES.to_pylist()}
    perturbed = 0
    for uid, out in first.items():
        if isinstance(out, str):
            assert out  # a reason, counted in coverage
            continue
        perturbed += 1
        example, table = by_uid[uid], TF_TABLES[by_uid[uid].table_id]
        for item in out:
            assert isinstance(item, ProbeExample) and isinstance(item.table, RelationalTable)
            assert (item.expected is None) == (probe.judged_by != "expected")
            assert item.expected is None or item.expected in ("E", "C")
            json.dumps(item.provenance)
            assert invariants.breaches(invariants.of(probe), example, table, item) == []
    assert perturbed, f"{probe.name} perturbed no example of the TabFact fixture"
    if "programs" in probe.needs:  # a statement without a program is skipped, saying so
        assert "statement has no program" in first["tf:4"]
    sources = source_files(probe.name)
    assert module_path(probe.name) in sources and "probes/base.py" in sources
    assert all((PACKAGE / path).is_file() for path in sources)
    assert probe.family in ("", "hypothesis", "counterfactual", "premise_control")
    assert (probe.label_change is not None) == (probe.family in ("hypothesis", "counterfactual"))


def test_a_probe_depends_on_the_helpers_it_imports_and_no_others():
    assert "probes/infotabs/hypothesis/edits/negation.py" in source_files("negation_flip")
    # one family of the parse-based edits, not the others
    assert "probes/infotabs/hypothesis/edits/dates.py" not in source_files("negation_flip")
    assert "probes/infotabs/table_edits.py" in source_files("row_deletion")
    assert not [f for f in source_files("row_deletion") if f.startswith("probes/infotabs/hypothesis/edits/")]
    # num_words imports number_edits, which imports text_edits: followed transitively; the
    # parse-based edits (hypothesis_edits) are not among them.
    assert {"probes/infotabs/number_edits.py", "probes/shared/text_edits.py"} <= set(source_files("num_words"))
    assert not [f for f in source_files("num_words") if f.startswith("probes/infotabs/hypothesis/edits/")]
    assert "probes/infotabs/table_edits.py" not in source_files("dummy_premise")


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
    for name, rule in transition_rules().items():
        # a TabFact rule is stated over its two labels, E and C
        labels = {"E", "C"} if get_probe(name).datasets == ("tabfact",) else set(LABELS)
        assert set(rule.allowed) == labels and rule.labels == tuple(lab for lab in LABELS if lab in labels)
        assert all(allowed <= set(LABELS) and allowed for allowed in rule.allowed.values())
    deletion = transition_rules()["row_deletion"]
    assert deletion.is_valid("E", "N") and not deletion.is_valid("E", "C")
    assert deletion.is_valid("N", "N") and not deletion.is_valid("N", "E")
    assert transition_rules()["record_deletion"].allowed_after("E") == "ENTAIL, CONTRADICT"


def test_a_two_label_rule_allows_only_e_and_c():
    from tabprobe.probes.transitions import PROJECT, transition_rule

    rule = transition_rule("r", PROJECT, E="E", C="C")
    assert set(rule.allowed) == {"E", "C"} and rule.labels == ("E", "C")
    with pytest.raises(ValueError, match="allows only E and C"):
        transition_rule("r", PROJECT, E="EN", C="C")
