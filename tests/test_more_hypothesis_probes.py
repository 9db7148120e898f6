"""The hypothesis edits of paper section 4 added for issue 32, on hand-written sentences parsed by
the real spaCy English model: names swapped in a false hypothesis (entity_preserve), another year
for a false date (temporal_preserve), durations (duration_preserve, duration_flip) and the
quantifiers most / many / every (quantifier_preserve, quantifier_flip). What each must do, and
what it must leave alone: here what holds of several probes at once (the duration and the
quantifier pairs), in tests/probes/test_probe_<name>.py what one probe does and in
tests/probes/test_hypothesis_edits.py what the edits they share do (the probes' files import this
split)."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data import parsing
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import Example, get_probe, invariants
from tabprobe.probes.generation import generate
from tabprobe.probes.shared.text_edits import apply_changes

TABLES = {
    "T1": Table(
        "T1",
        "Ada Quill",
        (
            Row("Born", ("March 3, 1950",)),
            Row("Residence", ("Oslo, Norway",)),
            Row("Spouse", ("Rui Costa",)),
            Row("Occupation", ("Poet",)),
        ),
        "Person",
    ),
    "T2": Table(
        "T2",
        "Bo Lind",
        (Row("Born", ("1975",)), Row("Residence", ("Bergen, Norway",)), Row("Spouse", ("Maria Holm",))),
        "Person",
    ),
    "T3": Table(
        "T3",
        "Cy Moss",
        (Row("Residence", ("Madrid, Spain",)), Row("Spouse", ("Tom Hale",))),
        "Person",
    ),
    # a name only a table holds (no hypothesis mentions Vienna): a substitute all the same
    "T4": Table("T4", "Di Roe", (Row("Residence", ("Vienna, Austria",)),), "Person"),
    "T10": Table(
        "T10",
        "Bridesmaids",
        (Row("Directed by", ("Paul Feig",)), Row("Running time", ("125 minutes",)), Row("Country", ("United States",))),
        "Movie",
    ),
    "T11": Table(
        "T11",
        "Breakfast in America",
        (
            Row("Released", ("29 March 1979",)),
            Row("Recorded", ("May–December 1978",)),
            Row("Genre", ("Pop",)),
            Row("Length", ("46:06",)),
        ),
        "Album",
    ),
}
HYPOTHESES = [
    # entity_preserve: what the pool of names learns from (ENTAIL), and what it edits (CONTRADICT)
    ("T2", "Bo Lind lives in Bergen.", "E"),
    ("T3", "Cy Moss lives in Madrid.", "E"),
    ("T2", "Bo Lind married Maria Holm.", "E"),
    ("T1", "Ada Quill lives in Bergen.", "C"),  # 5: Bergen stands in other tables' Residence
    ("T1", "Ada Quill married Rui Costa in Paris.", "C"),  # 6: Rui Costa is her Spouse
    ("T1", "Rui Costa is the manager of Ada Quill.", "C"),  # 7: no Manager row: another name is unknown
    ("T1", "Ada Quill lives in Bergen or Madrid.", "C"),  # 8: a disjunction
    ("T1", "Ada Quill does not live in Bergen.", "C"),  # 9: negated
    # temporal_preserve: another year for a false date
    ("T11", "Breakfast in America was released in the summer of 1979.", "C"),  # 10
    ("T2", "Bo Lind died in 1970.", "C"),  # 11: born 1975, so only earlier years
    ("T11", "Breakfast in America was mixed in June 1978.", "C"),  # 12: no row dates a mixing
    ("T2", "Bo Lind was still married in 1990.", "C"),  # 13: a lasting state
    # durations
    ("T11", "Breakfast in America is an album with a length of 46 minutes.", "E"),  # 14
    ("T10", "Bridesmaids runs for over three hours.", "C"),  # 15
    ("T10", "Bridesmaids has a running time of 90 minutes.", "C"),  # 16
    ("T1", "Ada Quill has been writing for over twenty years.", "E"),  # 17
    ("T10", "Bridesmaids runs for over 3 hours.", "C"),  # 18: digits: number_preserve's
    ("T1", "Ada Quill took a four year break.", "E"),  # 19: an adjective
    # quantifiers
    ("T1", "Most people in Oslo speak Norwegian.", "E"),  # 20
    ("T11", "Most of the songs were written by Ada Quill.", "C"),  # 21
    ("T1", "Ada Quill has won several awards.", "E"),  # 22
    ("T10", "The prize is awarded every year.", "C"),  # 23
    ("T10", "All Burn Energy drinks are sugar free.", "C"),  # 24
    ("T10", "Some nations send athletes.", "E"),  # 25
    ("T1", "Ada Quill is the most popular poet in Oslo.", "C"),  # 26: a superlative
    ("T1", "Ada Quill has been married for several years.", "C"),  # 27
]
EXAMPLES = pa.table(
    {
        "uid": [f"dev:{i + 2}" for i in range(len(HYPOTHESES))],
        "table_id": [t for t, _, _ in HYPOTHESES],
        "hypothesis": [h for _, h, _ in HYPOTHESES],
        "label": [lab for _, _, lab in HYPOTHESES],
    },
    schema=schemas.EXAMPLES,
)
NEW_PROBES = ["entity_preserve", "duration_preserve", "duration_flip", "quantifier_preserve"]
EXTENDED_PROBES = ["temporal_preserve", "quantifier_flip"]


@pytest.fixture(scope="module")
def docs(nlp, tmp_path_factory):
    path = tmp_path_factory.mktemp("parses") / "dev.spacy"
    parsing.write(
        parsing.parse(
            nlp, EXAMPLES["hypothesis"].to_pylist(), EXAMPLES["uid"].to_pylist(), EXAMPLES["table_id"].to_pylist()
        ),
        path,
    )
    return parsing.read(path, zip(EXAMPLES["uid"].to_pylist(), EXAMPLES["hypothesis"].to_pylist()))


@pytest.fixture(scope="module")
def outputs(docs):
    """Each probe over the fixture split: {probe: {orig_uid: record}} and its coverage."""
    out = {}
    for name in NEW_PROBES + EXTENDED_PROBES:
        table, coverage = generate(name, EXAMPLES, TABLES, seed=3, needs={"parse": docs})
        out[name] = ({r["orig_uid"]: r for r in table.to_pylist()}, coverage)
    return out


def uid(text: str) -> str:
    return f"dev:{[h for _, h, _ in HYPOTHESES].index(text) + 2}"


def edited(outputs, probe: str, text: str) -> dict | None:
    return outputs[probe][0].get(uid(text))


# ---------------------------------------------------------------- every new probe, end to end


@pytest.mark.parametrize("name", NEW_PROBES + EXTENDED_PROBES)
def test_each_edit_is_what_its_provenance_says_and_keeps_its_probes_promises(name, outputs, docs):
    records, coverage = outputs[name]
    assert records, coverage
    assert coverage["dropped"] == {}
    probe = get_probe(name)
    assert probe.family == "hypothesis" and "parse" in probe.needs and probe.labels == probe.labels & {"E", "C"}
    originals = {r["uid"]: r for r in EXAMPLES.to_pylist()}
    for record in records.values():
        gold = originals[record["orig_uid"]]
        provenance = json.loads(record["provenance"])
        assert apply_changes(gold["hypothesis"], provenance["changes"]) == record["hypothesis"] != gold["hypothesis"]
        expected = {"E": "C", "C": "E"}[gold["label"]] if probe.label_change == "flipped" else gold["label"]
        assert record["expected"] == expected
        example = Example(gold["uid"], gold["table_id"], gold["hypothesis"], gold["label"])
        from tabprobe.probes import ProbeExample

        out = ProbeExample(record["hypothesis"], Table.from_arrow(record["table"]), record["expected"], provenance)
        assert invariants.breaches(invariants.of(probe), example, TABLES[gold["table_id"]], out) == []
    again, _ = generate(name, EXAMPLES, TABLES, seed=3, needs={"parse": docs})
    assert {r["orig_uid"]: r for r in again.to_pylist()} == records


# ---------------------------------------------------------------- durations


def test_a_bare_duration_the_table_gives_becomes_false_as_in_paper_table3(outputs):
    record = edited(outputs, "duration_flip", "Breakfast in America is an album with a length of 46 minutes.")
    provenance = json.loads(record["provenance"])
    assert record["expected"] == "C" and provenance["checked"] == {"key": "Length", "value": "46:06"}
    assert "heuristic" not in provenance and "review" not in provenance
    minutes = int(re.match(r"\d+", provenance["changes"][0]["new"]).group(0))
    assert abs(minutes * 60 - 2766) > 0.1 * 2766  # clearly not 46:06
    assert edited(outputs, "duration_preserve", "Breakfast in America is an album with a length of 46 minutes.") is None


def test_a_duration_under_a_monotone_word_follows_paper_table2(outputs):
    text = "Bridesmaids runs for over three hours."  # CONTRADICT: 125 minutes
    kept = json.loads(edited(outputs, "duration_preserve", text)["provenance"])
    assert kept["direction"] == "up" and kept["checked"]["value"] == "125 minutes"
    assert edited(outputs, "duration_preserve", text)["hypothesis"] in (
        "Bridesmaids runs for over four hours.",
        "Bridesmaids runs for over five hours.",
    )
    flipped = edited(outputs, "duration_flip", text)
    assert flipped["hypothesis"] == "Bridesmaids runs for over ninety minutes." and flipped["expected"] == "E"
    # checked against the table, yet CONTRADICT -> ENTAIL: a person still looks at it
    assert json.loads(flipped["provenance"])["review"]["needs"] == ["C2E"]


def test_a_false_bare_duration_moves_further_from_the_tables(outputs):
    record = edited(outputs, "duration_preserve", "Bridesmaids has a running time of 90 minutes.")
    minutes = int(re.search(r"(\d+) minutes", record["hypothesis"]).group(1))
    assert record["expected"] == "C" and minutes < 90
    assert edited(outputs, "duration_flip", "Bridesmaids has a running time of 90 minutes.") is None


def test_an_unchecked_duration_flip_is_a_heuristic_for_a_person(outputs):
    text = "Ada Quill has been writing for over twenty years."
    flipped = edited(outputs, "duration_flip", text)
    assert flipped["hypothesis"] == "Ada Quill has been writing for over forty years."
    assert json.loads(flipped["provenance"])["heuristic"] == "half/twice"
    assert json.loads(flipped["provenance"])["review"]["status"] == "unverified"
    kept = edited(outputs, "duration_preserve", text)
    assert re.fullmatch(
        r"Ada Quill has been writing for over (fourteen|fifteen|sixteen|seventeen|eighteen) years\.", kept["hypothesis"]
    )


@pytest.mark.parametrize("text", ["Bridesmaids runs for over 3 hours.", "Ada Quill took a four year break."])
def test_duration_probes_leave_the_number_probes_digits_and_adjectives(outputs, text):
    for name in ("duration_preserve", "duration_flip"):
        assert edited(outputs, name, text) is None
    if "3 hours" in text:
        assert edited(outputs, "duration_preserve", text) is None  # number_preserve moves it


# ---------------------------------------------------------------- quantifiers


def test_quantifier_probes_on_the_split(outputs):
    assert edited(outputs, "quantifier_preserve", "Ada Quill has been married for several years.") is None
    flipped = edited(outputs, "quantifier_flip", "All Burn Energy drinks are sugar free.")
    assert flipped["expected"] == "E" and json.loads(flipped["provenance"])["review"]["needs"] == ["C2E"]
    few = edited(outputs, "quantifier_flip", "Most people in Oslo speak Norwegian.")
    assert few["hypothesis"] == "Few people in Oslo speak Norwegian."
    assert json.loads(few["provenance"])["review"]["needs"] == ["heuristic"]
    assert edited(outputs, "quantifier_flip", "Ada Quill is the most popular poet in Oslo.") is None
