"""Hypothesis probes (paper section 4) and premise controls, on hand-written sentences parsed by
the real spaCy English model: what holds of several of them at once. A probe's own tests are in
tests/probes/test_probe_<name>.py, the edits they share in tests/probes/test_hypothesis_edits.py
and the parse they read in tests/test_parsing.py; those files import this split."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data import parsing
from tabprobe.data.infobox.render import render
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import get_probe
from tabprobe.probes.generation import generate
from tabprobe.probes.shared.text_edits import apply_changes

TABLES = {
    "T10": Table(
        "T10",
        "Bridesmaids",
        (
            Row("Directed by", ("Paul Feig",)),
            Row("Running time", ("125 minutes",)),
            Row("Release date", ("May 13, 2011",)),
            Row("Country", ("United States",)),
        ),
        "Movie",
    ),
    "T11": Table(
        "T11",
        "Breakfast in America",
        (
            Row("Released", ("29 March 1979",)),
            Row("Producer", ("Pete Henderson",)),
            Row("Genre", ("Pop",)),
            Row("Length", ("46:06",)),
        ),
        "Album",
    ),
    "T12": Table(
        "T12",
        "Ada Quill",
        (Row("Born", ("March 3, 1950", "London")), Row("Spouse", ("Rui Costa",)), Row("Occupation", ("Poet",))),
        "Person",
    ),
    "T13": Table(
        "T13",
        "Bo Lind",
        (Row("Born", ("1975", "Paris")), Row("Spouse", ("Maria Holm",)), Row("Residence", ("Oslo",))),
        "Person",
    ),
}
HYPOTHESES = [
    ("T10", "Bridesmaids has a running time of over 3 hours.", "C"),
    ("T10", "Bridesmaids was directed by Paul Feig.", "E"),
    ("T10", "Bridesmaids was released on May 13, 2011.", "E"),
    ("T11", "Breakfast in America is less than 50:00 long.", "E"),
    ("T11", "Breakfast in America was released before 1985.", "E"),
    ("T11", "Breakfast in America was not produced by Pete Henderson.", "C"),
    ("T12", "Ada Quill married Rui Costa.", "E"),
    ("T12", "Ada Quill was born in Paris.", "C"),
    ("T12", "Ada Quill has more than 1,234 poems.", "N"),
    ("T13", "Bo Lind married Maria Holm.", "E"),
    ("T13", "Bo Lind lives in Oslo.", "E"),
    ("T13", "Bo Lind was born after 1980.", "C"),
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
HYPOTHESIS_PROBES = [
    "entity_flip",
    "number_preserve",
    "number_flip",
    "temporal_preserve",
    "temporal_flip",
    "negation_flip",
    "modifier_preserve",
    "quantifier_flip",
]


@pytest.fixture(scope="module")
def docs(nlp, tmp_path_factory):
    """The fixture split parsed and stored the way the workflow does, then read back."""
    path = tmp_path_factory.mktemp("parses") / "dev.spacy"
    parsing.write(
        parsing.parse(
            nlp, EXAMPLES["hypothesis"].to_pylist(), EXAMPLES["uid"].to_pylist(), EXAMPLES["table_id"].to_pylist()
        ),
        path,
    )
    return parsing.read(path, zip(EXAMPLES["uid"].to_pylist(), EXAMPLES["hypothesis"].to_pylist()))


# ---------------------------------------------------------------- every probe, end to end


@pytest.mark.parametrize("name", HYPOTHESIS_PROBES)
def test_every_edit_is_exactly_what_its_provenance_says(name, docs):
    out, coverage = generate(name, EXAMPLES, TABLES, seed=11, needs={"parse": docs})
    assert out.num_rows > 0, coverage
    probe = get_probe(name)
    originals = dict(zip(EXAMPLES["uid"].to_pylist(), EXAMPLES["hypothesis"].to_pylist()))
    for record in out.to_pylist():
        original = originals[record["orig_uid"]]
        provenance = json.loads(record["provenance"])
        changes = provenance["changes"]
        assert changes and all(c["old"] != c["new"] for c in changes)
        for c in changes:
            assert original[c["start"] : c["end"]] == c["old"]
        assert apply_changes(original, changes) == record["hypothesis"] != original
        assert record["label"] in probe.labels and record["label"] != "N"
        if name.endswith("_flip"):
            assert record["expected"] == {"E": "C", "C": "E"}[record["label"]]
        else:
            assert record["expected"] == record["label"]
        assert Table.from_arrow(record["table"]) == TABLES[record["table_id"]]  # hypothesis probes leave the table
    again, _ = generate(name, EXAMPLES, TABLES, seed=11, needs={"parse": docs})
    assert again.equals(out)


def test_hypothesis_probes_declare_their_parse_and_refuse_to_run_without_it():
    for name in HYPOTHESIS_PROBES:
        assert "parse" in get_probe(name).needs
    with pytest.raises(ValueError, match="reads the hypothesis parse"):
        generate("negation_flip", EXAMPLES, TABLES, seed=1)


def test_premise_controls():
    hypothesis_only, _ = generate("hypothesis_only", EXAMPLES, TABLES, seed=1)
    dummy, _ = generate("dummy_premise", EXAMPLES, TABLES, seed=1)
    swapped, _ = generate("swapped_table", EXAMPLES, TABLES, seed=1)
    for out in (hypothesis_only, dummy, swapped):
        assert out.num_rows == EXAMPLES.num_rows
        assert out["expected"].to_pylist() == EXAMPLES["label"].to_pylist()
        assert out["hypothesis"].to_pylist() == EXAMPLES["hypothesis"].to_pylist()
    for record in hypothesis_only.to_pylist():
        assert (
            render(Table.from_arrow(record["table"]), "para")
            == render(Table.from_arrow(record["table"]), "struct")
            == ""
        )
    premises = {render(Table.from_arrow(r["table"]), "para") for r in dummy.to_pylist()}
    assert premises == {"The quote of Hamlet are to be or not to be."}
    for record in swapped.to_pylist():
        provenance = json.loads(record["provenance"])
        assert provenance["from_table"] != record["table_id"]
        assert Table.from_arrow(record["table"]) == TABLES[provenance["from_table"]]
