"""What every probe promises about its output (probes/invariants.py), how generate_probe drops and
counts an example that breaks a promise, and the curation of label flips a person must check
(tabprobe.probes.curation): reading decisions, applying them, leaving the undecided out of scores."""

from __future__ import annotations

import json
import logging

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.datasets import get_dataset
from tabprobe.data.infobox.table import Row, Table
from tabprobe.errors import InputDataError
from tabprobe.probes import Example, Probe, ProbeExample, curation, get_probe, invariants
from tabprobe.probes import generation as perturb
from tabprobe.probes.generation import generate
from tabprobe.probes.infotabs.table_edits import INSERTED_KEYS_NEW, related_keys

TABLE = Table(
    "T1",
    "Ada Quill",
    (Row("Born", ("3 May 1901",)), Row("Occupation", ("Poet", "editor")), Row("Density  (at STP)", ("1.2 g/L",))),
    "Person",
)
EXAMPLE = Example("dev:2", "T1", "Ada Quill was a poet.", "E")


def breach(invariant, out: ProbeExample, example=EXAMPLE, table=TABLE):
    return invariant.check(example, table, out)


# ---------------------------------------------------------------- the invariants detect what they name


def test_changes_something_catches_an_unchanged_example():
    assert breach(invariants.CHANGES_SOMETHING, ProbeExample(EXAMPLE.hypothesis, TABLE, "E")) is not None
    assert breach(invariants.CHANGES_SOMETHING, ProbeExample("Ada Quill was not a poet.", TABLE, "C")) is None


def test_recorded_edits_must_reproduce_the_hypothesis():
    good = {"changes": [{"start": 10, "end": 13, "old": "was", "new": "was not"}]}
    assert breach(invariants.EDITS_REPRODUCE, ProbeExample("Ada Quill was not a poet.", TABLE, "C", good)) is None
    wrong_old = {"changes": [{"start": 10, "end": 13, "old": "is", "new": "was not"}]}
    assert "holds 'was'" in breach(
        invariants.EDITS_REPRODUCE, ProbeExample("Ada Quill was not a poet.", TABLE, "C", wrong_old)
    )
    case_only = {"changes": [{"start": 16, "end": 20, "old": "poet", "new": "Poet"}]}
    assert "case or spacing" in breach(
        invariants.EDITS_REPRODUCE, ProbeExample("Ada Quill was a Poet.", TABLE, "E", case_only)
    )
    assert "give" in breach(invariants.EDITS_REPRODUCE, ProbeExample("Something else.", TABLE, "C", good))


def test_clean_spacing_catches_doubled_spaces_and_stray_punctuation_an_edit_adds():
    assert breach(invariants.CLEAN_SPACING, ProbeExample("Ada Quill was  a poet.", TABLE, "E")) is not None
    assert breach(invariants.CLEAN_SPACING, ProbeExample("Ada Quill was a poet .", TABLE, "E")) is not None
    spaced = Example("dev:3", "T1", "The  IEEE medal went to Ada Quill.", "E")  # the annotator's own double space
    assert (
        breach(invariants.CLEAN_SPACING, ProbeExample("The  IEEE medal went to Bo Tarn.", TABLE, "E"), spaced) is None
    )


def test_row_edits_must_turn_the_table_into_the_new_one():
    deleted = TABLE.with_rows(TABLE.rows[1:])
    record = {"deleted_row": {"index": 0, "key": "Born", "values": ["3 May 1901"]}}
    assert breach(invariants.ROW_EDITS_REPLAY, ProbeExample(EXAMPLE.hypothesis, deleted, None, record)) is None
    lying = {"deleted_row": {"index": 1, "key": "Born", "values": ["3 May 1901"]}}
    assert "do not fit" in breach(invariants.ROW_EDITS_REPLAY, ProbeExample(EXAMPLE.hypothesis, deleted, None, lying))
    two_gone = TABLE.with_rows(TABLE.rows[2:])
    assert "do not give" in breach(
        invariants.ROW_EDITS_REPLAY, ProbeExample(EXAMPLE.hypothesis, two_gone, None, record)
    )


def test_inserted_keys_must_be_unrelated_to_the_table():
    for key in ("Density (at STP)", "Occupation(s)", "Occupations", "Productioncompany"):
        table = TABLE if key != "Productioncompany" else TABLE.with_rows([Row("Production company", ("X",))])
        inserted = table.with_rows([*table.rows, Row(key, ("y",))])
        record = {"inserted_row": {"index": len(table.rows), "key": key, "values": ["y"], "from_table": "T9"}}
        assert breach(INSERTED_KEYS_NEW, ProbeExample(EXAMPLE.hypothesis, inserted, None, record), table=table), key
    inserted = TABLE.with_rows([*TABLE.rows, Row("Website", ("quill.example",))])
    record = {"inserted_row": {"index": 3, "key": "Website", "values": ["quill.example"], "from_table": "T9"}}
    assert breach(INSERTED_KEYS_NEW, ProbeExample(EXAMPLE.hypothesis, inserted, None, record)) is None


@pytest.mark.parametrize(
    "a, b, related",
    [
        ("Capital", "Capital and largest city", True),
        ("Distributor", "Distributed by", True),
        ("Nationality", "Citizenship", True),
        ("Grandsire", "Paternal grandsire", True),
        ("Occupation", "Occupation(s)", True),
        ("Density  (at STP)", "Density (at STP)", True),
        ("Website", "Genre", False),
        ("Label", "Producer", False),
    ],
)
def test_keys_naming_one_attribute_are_related(a, b, related):
    assert related_keys(a, b) is related


def test_a_value_update_must_bring_a_value_new_to_its_row():
    def update(new):
        rows = list(TABLE.rows)
        rows[1] = Row("Occupation", (new, "editor"))
        record = {
            "updated_row": {
                "index": 1,
                "key": "Occupation",
                "value_index": 0,
                "old": "Poet",
                "new": new,
                "from_table": "T9",
            }
        }
        return breach(
            invariants.VALUE_NEW_TO_ROW, ProbeExample(EXAMPLE.hypothesis, TABLE.with_rows(rows), None, record)
        )

    assert update("Singer") is None
    assert update("poet") is not None and update("Editor") is not None and update("Poet (1920s)") is not None


def test_every_registered_probe_promises_something():
    for name in ("original", "row_deletion", "entity_flip", "num_comparative", "cf_title_swap"):
        promises = invariants.of(get_probe(name))
        assert promises and all(isinstance(p, invariants.Invariant) for p in promises)
    # a probe that declares none gets the default promise, and its label_change adds its own
    bare = Probe(
        name="bare",
        description="x",
        apply=lambda *a: [],
        judged_by="expected",
        label_change="flipped",
        family="hypothesis",
    )
    assert [p.name for p in invariants.of(bare)] == [
        "changes the table or the hypothesis",
        "flips ENTAIL and CONTRADICT",
    ]


# ---------------------------------------------------------------- generate drops, counts and logs a breach

EXAMPLES = pa.table(
    {
        "uid": ["dev:2", "dev:3", "dev:4"],
        "table_id": ["T1", "T1", "T1"],
        "hypothesis": ["Ada Quill was a poet.", "Ada Quill was a singer.", "Ada Quill wrote."],
        "label": ["E", "C", "N"],
    },
    schema=schemas.EXAMPLES,
)


def _with_probe(monkeypatch, probe):
    monkeypatch.setattr(perturb, "get_probe", lambda name: probe)


def test_a_perturbation_that_breaks_a_promise_is_dropped_counted_and_logged(monkeypatch, caplog):
    def apply(example, table, doc, ctx):
        unchanged = ProbeExample(example.hypothesis, table, example.label, {})
        changed = ProbeExample(example.hypothesis + " Indeed.", table, example.label, {})
        # dev:2 offers a good and a bad perturbation; dev:3 only a bad one
        return [unchanged, changed] if example.uid == "dev:2" else [unchanged]

    _with_probe(
        monkeypatch, Probe(name="sloppy", description="x", apply=apply, judged_by="expected", datasets=("infotabs",))
    )
    with caplog.at_level(logging.WARNING, logger="tabprobe.probes.generation"):
        out, coverage = generate("sloppy", EXAMPLES, {"T1": TABLE}, seed=1)
    assert out["orig_uid"].to_pylist() == ["dev:2"] and out["hypothesis"][0].as_py().endswith("Indeed.")
    assert coverage["dropped"] == {"changes the table or the hypothesis": 3}
    assert coverage["skipped"] == {"every perturbation dropped (breaks 'changes the table or the hypothesis')": 2}
    assert [r.message for r in caplog.records if "dropped" in r.message][0].startswith("sloppy dev:2: dropped")


# ---------------------------------------------------------------- curation


def _tsv(tmp_path, rows, name="c.tsv", header=curation.COLUMNS, bom=False):
    path = tmp_path / name
    lines = ["\t".join(header)] + ["\t".join(row.get(c, "") for c in header) for row in rows]
    path.write_text(("\ufeff" if bom else "") + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_needs_review_marks_contradict_to_entail_flips_and_heuristics():
    assert curation.needs_review("flipped", "C", "E", {}) == ["C2E"]
    assert curation.needs_review("flipped", "E", "C", {}) == []
    assert curation.needs_review("flipped", "E", "C", {"heuristic": "half/twice"}) == ["heuristic"]
    assert curation.needs_review(None, "C", "E", {}) == []  # a rule-labelled template flips nothing


def test_decisions_are_read_from_a_spreadsheet_tsv_with_or_without_bom(tmp_path):
    path = _tsv(
        tmp_path,
        [
            {"uid": "alpha1:2/negation_flip", "decision": "accept", "hypothesis": "A is not B."},
            {"uid": "alpha1:3/negation_flip", "decision": "Relabel", "label": "neutral", "hypothesis": "C."},
            {"uid": "alpha1:4/negation_flip", "decision": "", "hypothesis": "undecided"},
        ],
        bom=True,
    )
    decisions = curation.read_decisions([path])
    assert sorted(decisions) == ["alpha1:2/negation_flip", "alpha1:3/negation_flip"]
    assert decisions["alpha1:3/negation_flip"].label == "N"


@pytest.mark.parametrize(
    "row, message",
    [
        (
            {"uid": "a", "decision": "maybe", "hypothesis": "x"},
            "decision 'maybe' is not one of accept, reject, relabel",
        ),
        ({"uid": "a", "decision": "relabel", "label": "X", "hypothesis": "x"}, "relabel needs a label of E, N or C"),
    ],
)
def test_a_bad_decision_names_file_line_and_fix(tmp_path, row, message):
    path = _tsv(tmp_path, [row])
    with pytest.raises(InputDataError) as error:
        curation.read_decisions([path])
    assert f"{path}:2: {message}" in str(error.value) and "How to fix" in str(error.value)


def test_a_curation_file_without_its_columns_or_with_a_uid_twice_is_refused(tmp_path):
    with pytest.raises(InputDataError, match="lacks column"):
        curation.read_decisions([_tsv(tmp_path, [], header=("uid", "decision"))])
    twice = _tsv(
        tmp_path,
        [{"uid": "a", "decision": "accept", "hypothesis": "x"}, {"uid": "a", "decision": "reject", "hypothesis": "x"}],
    )
    with pytest.raises(InputDataError, match=r":3: uid a was decided before, at .*:2"):
        curation.read_decisions([twice])


def _flip(example, table, doc, ctx):
    return [
        ProbeExample(
            example.hypothesis.replace("was", "was not"),
            table,
            {"E": "C", "C": "E"}[example.label],
            {"changes": [{"start": 10, "end": 13, "old": "was", "new": "was not"}]},
        )
    ]


FLIP = Probe(
    name="flip",
    description="x",
    apply=_flip,
    judged_by="expected",
    labels=frozenset({"E", "C"}),
    label_change="flipped",
    family="hypothesis",
    datasets=("infotabs",),
)


def decide(uid, hypothesis, decision, label=None):
    return curation.Decision(uid, hypothesis, decision, label, "c.tsv:2")


def test_decisions_are_applied_when_the_probe_is_generated(monkeypatch):
    _with_probe(monkeypatch, FLIP)
    # no decision: the C -> E flip is an unverified candidate
    out, coverage = generate("flip", EXAMPLES, {"T1": TABLE}, seed=1, split="dev")
    assert coverage["review"] == {
        "candidates": 1,
        "accepted": 0,
        "relabelled": 0,
        "rejected": 0,
        "unverified": 1,
        "stale": 0,
    }
    assert json.loads(out["provenance"][1].as_py())["review"] == {"needs": ["C2E"], "status": "unverified"}
    # accepted, relabelled, rejected, stale
    for decision, expected in [
        (decide("dev:3/flip", "Ada Quill was not a singer.", "accept"), ("E", "accepted")),
        (decide("dev:3/flip", "Ada Quill was not a singer.", "relabel", "N"), ("N", "relabelled")),
    ]:
        out, coverage = generate(
            "flip", EXAMPLES, {"T1": TABLE}, seed=1, decisions={"dev:3/flip": decision}, split="dev"
        )
        record = out.to_pylist()[1]
        assert (record["expected"], json.loads(record["provenance"])["review"]["status"]) == expected
        assert coverage["review"][expected[1]] == 1 and coverage["review"]["unverified"] == 0
    out, coverage = generate(
        "flip",
        EXAMPLES,
        {"T1": TABLE},
        seed=1,
        split="dev",
        decisions={"dev:3/flip": decide("dev:3/flip", "Ada Quill was not a singer.", "reject")},
    )
    assert out["orig_uid"].to_pylist() == ["dev:2"] and coverage["skipped"]["rejected by curation"] == 1
    out, coverage = generate(
        "flip",
        EXAMPLES,
        {"T1": TABLE},
        seed=1,
        split="dev",
        decisions={"dev:3/flip": decide("dev:3/flip", "an older edit", "accept")},
    )
    assert coverage["review"]["stale"] == 1 and coverage["review"]["unverified"] == 1  # made on other text


def test_unverified_candidates_are_left_out_of_scores_unless_included(monkeypatch):
    _with_probe(monkeypatch, FLIP)
    out, _ = generate("flip", EXAMPLES, {"T1": TABLE}, seed=1, split="dev")
    assert curation.scored(out)["orig_uid"].to_pylist() == ["dev:2"]
    assert curation.scored(out, "include").num_rows == 2
    with pytest.raises(ValueError, match="unverified_flips"):
        curation.scored(out, "maybe")


def test_the_review_tsv_round_trips_through_read_decisions(monkeypatch, tmp_path):
    _with_probe(monkeypatch, FLIP)
    out, _ = generate("flip", EXAMPLES, {"T1": TABLE}, seed=1, split="dev")
    items, stale = curation.review_items(out, "flipped")
    assert [i.record["uid"] for i in items] == ["dev:3/flip"] and stale == 0
    rows = curation.tsv_rows(items, {r["uid"]: r for r in EXAMPLES.to_pylist()})
    rows[0] = {**rows[0], "decision": "relabel", "label": "N", "note": 'a "quoted"\ttab'}
    path = tmp_path / "flip.dev.curation.tsv"
    curation.write_tsv(rows, path)
    (decision,) = curation.read_decisions([path]).values()
    assert (decision.uid, decision.decision, decision.label, decision.note) == (
        "dev:3/flip",
        "relabel",
        "N",
        'a "quoted"\ttab',
    )
    # an earlier decision on the same text is kept when the page is written again
    items, _ = curation.review_items(out, "flipped", earlier={"dev:3/flip": decision})
    assert items[0].decision == decision
    page = curation.review_page(
        items,
        curation.tsv_rows(items, {r["uid"]: r for r in EXAMPLES.to_pylist()}),
        {"T1": TABLE},
        "flip",
        "dev",
        path.name,
    )
    assert "</script><script>" not in page.split('id="curation-data"')[1].split("</script>")[0]
    assert '"filename": "flip.dev.curation.tsv"' in page


def test_decisions_that_can_never_apply_are_named_with_their_file_and_line():
    """A uid without its split, of a split the probe does not run on, or of no example there: said
    with the config (before any job), not counted as stale in a job's log."""
    decisions = {
        uid: curation.Decision(uid, "h", "accept", None, f"c.tsv:{line}")
        for line, uid in enumerate(["999/flip", "alpha2:4/flip", "alpha1:999999/flip", "alpha1:3/flip"], start=2)
    }
    problems = curation.uid_problems(
        decisions, ["alpha1"], lambda split: {2, 3, 4} if split == "alpha1" else None, get_dataset("infotabs").splits
    )
    assert problems == [
        "c.tsv:2: uid '999/flip' names no example: a uid starts with <split>:<line> (a split of train, dev, alpha1, "
        "alpha2, alpha3), or <split>:<table id>:<index>, as `tabprobe curate` writes it",
        "c.tsv:3: uid alpha2:4/flip is of alpha2, where this probe does not run (alpha1): remove the line, or add "
        "the split to the probe's `splits:`",
        "c.tsv:4: uid alpha1:999999/flip: alpha1 has no example on line 999999 (its examples are on lines 2-4); "
        "remove the line, or curate the data it was made on",
    ]
    # Without the data at hand (a download still to come) the lines are not checked.
    assert (
        curation.uid_problems(
            {"alpha1:999999/flip": decisions["alpha1:999999/flip"]}, ["alpha1"], lambda s: None, ("alpha1",)
        )
        == []
    )


def test_a_tabfact_uid_is_split_table_and_statement_and_its_relabels_take_its_two_labels():
    """`tabprobe curate tf_negation --split simple_test` writes uids <split>:<table id>:<index>: the
    config check takes them (issue 42 item 10), and a relabel to a label TabFact lacks is refused."""

    def decided(uid: str, label: str | None = None, line: int = 2):
        return {uid: curation.Decision(uid, "h", "relabel" if label else "accept", label, f"c.tsv:{line}")}

    splits, labels = ["simple_test", "bootstrap"], ("E", "C")
    every_split = get_dataset("tabfact").splits
    assert (
        curation.uid_problems(
            decided("simple_test:2-1.html.csv:3/tf_negation"), splits, lambda s: None, every_split, labels
        )
        == []
    )
    assert (
        curation.uid_problems(
            decided("simple_test:2-1.html.csv:3/tf_negation", "C"), splits, lambda s: None, every_split, labels
        )
        == []
    )
    assert curation.uid_problems(
        decided("simple_test:2-1.html.csv:3/tf_negation", "N"), splits, lambda s: None, every_split, labels
    ) == [
        "c.tsv:2: uid simple_test:2-1.html.csv:3/tf_negation: relabel with N, which this probe's dataset does not have "
        "(its labels: E, C); relabel with one of them, or reject the example"
    ]
    [problem] = curation.uid_problems(
        decided("simple_test:2-1.html.csv/tf_negation"), splits, lambda s: None, every_split, labels
    )
    assert "uid 'simple_test:2-1.html.csv/tf_negation' names no example" in problem
    [problem] = curation.uid_problems(
        decided("complex_test:2-1.html.csv:0/tf_negation"), splits, lambda s: None, every_split, labels
    )
    assert "is of complex_test, where this probe does not run (simple_test, bootstrap)" in problem


def test_a_pair_people_made_is_not_a_curation_candidate():
    """C -> E flips of the paper's hand-made counterfactuals are the annotators' labels: they count
    without review, while the same flip made by a machine waits for a person."""
    assert curation.needs_review("flipped", "C", "E", {}) == ["C2E"]
    assert curation.needs_review("flipped", "C", "E", {"made_by": "human"}) == []
