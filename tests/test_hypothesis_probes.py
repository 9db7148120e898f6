"""Hypothesis probes (paper section 4) and premise controls, on hand-written sentences parsed by
the real spaCy English model: the edits they share, what holds of several of them, and the
shared parse they read. A probe's own tests are in tests/probes/test_probe_<name>.py, which
import this split."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data import parsing
from tabprobe.data.infotabs.render import render
from tabprobe.data.infotabs.table import Row, Table
from tabprobe.errors import CorruptFileError
from tabprobe.probes import get_probe
from tabprobe.probes.generation import generate
from tabprobe.probes.hypothesis_edits.dates import MONTHS, change_month, free_dates, generalise_date, shift_year
from tabprobe.probes.hypothesis_edits.negation import negation_edit
from tabprobe.probes.hypothesis_edits.numbers import (
    MONOTONE_WORDS,
    PAPER_TABLE2,
    TEMPORAL_WORDS,
    Number,
    monotone_edit,
    monotone_number_probe,
    monotone_numbers,
)
from tabprobe.probes.hypothesis_edits.quantifiers import QUANTIFIER_COMPLEMENTS, quantifier_edits
from tabprobe.probes.text_edits import apply_changes

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


# ---------------------------------------------------------------- numbers and monotonicity


@pytest.mark.parametrize(
    "text,value,written_twice",
    [
        ("1,234", 1234.0, "2,468"),
        ("3.5", 3.5, "7.0"),
        ("1979", 1979.0, "3958"),
        ("46:06", 2766.0, "92:12"),
        ("1:02:03", 3723.0, "2:04:06"),
        ("12", 12.0, "24"),
    ],
)
def test_numbers_are_read_and_rewritten_in_their_own_format(text, value, written_twice):
    number = Number.parse(text)
    assert number.value == value
    assert number.format(number.value) == text
    assert number.format(2 * number.value) == written_twice


def test_what_is_not_a_number_is_left_alone():
    for text in ["12a", "1,23", "46:75", "", "one"]:
        assert Number.parse(text) is None


@pytest.mark.parametrize("word", sorted(MONOTONE_WORDS))
@pytest.mark.parametrize("label", ["E", "C"])
def test_each_monotone_word_moves_its_number_the_right_way(nlp, word, label):
    temporal = word in TEMPORAL_WORDS
    text = f"The band was formed {word} 1970." if temporal else f"The film runs {word} 100 minutes."
    items = monotone_numbers(nlp(text))
    assert [(m.word, m.text, m.temporal) for m in items] == [(word, "1970" if temporal else "100", temporal)]
    keeps_entail_up = MONOTONE_WORDS[word] == "up"
    keeps_label_up = keeps_entail_up if label == "E" else not keeps_entail_up
    old = items[0].number.value
    rng = np.random.default_rng(0)
    kept, provenance = monotone_edit(text, items[0], label, flip=False, rng=rng)
    new = Number.parse(provenance["changes"][0]["new"]).value
    assert (new > old) == keeps_label_up and new != old
    assert "heuristic" not in provenance
    flipped, provenance = monotone_edit(text, items[0], label, flip=True, rng=rng)
    new = Number.parse(provenance["changes"][0]["new"]).value
    assert (new > old) == (not keeps_label_up)
    if temporal:
        assert abs(new - old) == 30 and provenance["heuristic"] == "30 years"
    else:
        assert new == (2 * old if new > old else old / 2) and provenance["heuristic"] == "half/twice"
    assert provenance["word_from_paper_table2"] == (word in PAPER_TABLE2)


def test_paper_table2_directions():
    # Table 2: upward monotone moves keep CONTRADICT for over / more than / after and ENTAIL
    # for under / less than / before.
    for word in ("over", "more than", "after"):
        assert MONOTONE_WORDS[word] == "down"
    for word in ("under", "less than", "before"):
        assert MONOTONE_WORDS[word] == "up"


def test_numbers_in_other_formats_move_and_keep_their_format(nlp):
    rng = np.random.default_rng(1)
    for text, pattern in [
        ("The city has more than 1,234 residents.", r"\d{1,3}(,\d{3})*"),
        ("The river is under 3.5 km long.", r"\d+\.\d"),
        ("The album is less than 46:06 long.", r"\d+:\d\d"),
    ]:
        item = monotone_numbers(nlp(text))[0]
        _, provenance = monotone_edit(text, item, "E", flip=True, rng=rng)
        import re

        assert re.fullmatch(pattern, provenance["changes"][0]["new"]), provenance


def test_a_negated_sentence_gets_no_monotone_edit(nlp):
    example = _example(0)
    doc = nlp("The film does not run over 100 minutes.")
    from tabprobe.probes import NotApplicable, ProbeContext

    ctx = ProbeContext(rng=np.random.default_rng(0), tables=TABLES)
    with pytest.raises(NotApplicable, match="negated"):
        monotone_number_probe(example, TABLES["T10"], doc, ctx, temporal=False, flip=False)


# ---------------------------------------------------------------- dates, negation, quantifiers


def test_dates_generalise_shift_and_change_month(nlp):
    text = "Breakfast in America was released on March 29, 1979."
    (date,) = free_dates(nlp(text))
    assert generalise_date(text, date)[0] == "Breakfast in America was released in 1979."
    for sentence, general in [
        ("Jeff Bridges was born in the summer of 1949.", "Jeff Bridges was born in 1949."),
        ("The band started making songs in 1969.", "The band started making songs in the 1960s."),
        ("Karen Gillan was born in 1987.", "Karen Gillan was born in the 1980s."),
    ]:
        (entity,) = free_dates(nlp(sentence))
        assert generalise_date(sentence, entity)[0] == general
    winter = "Jeff Bridges was born in the winter of 1949."  # the winter of 1949 runs into 1950
    (entity,) = free_dates(nlp(winter))
    assert generalise_date(winter, entity) is None and shift_year(winter, entity, np.random.default_rng(0)) is None
    since = "The band has played since 1969."
    assert all(generalise_date(since, e) is None for e in free_dates(nlp(since)))  # "since the 1960s" says more
    rng = np.random.default_rng(3)
    shifted, provenance = shift_year(text, date, rng)
    year = int(provenance["changes"][0]["new"])
    assert 1 <= abs(year - 1979) <= 10 and shifted == text.replace("1979", str(year))
    changed, provenance = change_month(text, date, rng)
    assert provenance["changes"][0]["old"] == "March" and provenance["changes"][0]["new"] in MONTHS
    assert provenance["changes"][0]["new"] != "March"


@pytest.mark.parametrize(
    "text,negated",
    [
        ("Ada Quill is a poet.", "Ada Quill is not a poet."),
        ("Ada Quill was born in London.", "Ada Quill was not born in London."),
        ("Ada Quill won the Hugo Award.", "Ada Quill did not win the Hugo Award."),
        ("Ada Quill writes poems.", "Ada Quill does not write poems."),
        ("Ada Quill isn't married.", "Ada Quill is married."),
        ("The band can't play jazz.", "The band can play jazz."),
        (
            "Breakfast in America was not produced by Pete Henderson.",
            "Breakfast in America was produced by Pete Henderson.",
        ),
    ],
)
def test_negation_is_inserted_or_removed(nlp, text, negated):
    assert negation_edit(nlp(text))[0] == negated


@pytest.mark.parametrize(
    "text",
    ["Ada Quill has no children.", "Ada Quill never married.", "Ada Quill was born in London and lives in Paris."],
)
def test_negation_skips_sentences_it_cannot_flip_reliably(nlp, text):
    assert negation_edit(nlp(text)) is None


@pytest.mark.parametrize(
    "text,complement",
    [
        ("Ada Quill has more than 3 children.", "Ada Quill has no more than 3 children."),
        ("The film runs over 100 minutes.", "The film runs no more than 100 minutes."),
        ("The album is under 40 minutes long.", "The album is at least 40 minutes long."),
        ("Fewer than 1,234 people live there.", "At least 1,234 people live there."),
        ("Ada Quill has at least one child.", "Ada Quill has less than one child."),
        ("At most 5 people live in Oslo.", "More than 5 people live in Oslo."),
        ("The river is less than 3.5 km long.", "The river is at least 3.5 km long."),
    ],
)
def test_quantifiers_swap_for_their_complement(nlp, text, complement):
    ((edited, provenance),) = quantifier_edits(nlp(text))
    assert edited == complement
    assert QUANTIFIER_COMPLEMENTS[provenance["quantifier"]] == provenance["complement"]
    # the complement of the complement says the same as the original
    same_meaning = [
        {"more than", "over", "greater than"},
        {"less than", "fewer than", "under"},
        {"at least", "no less than", "no fewer than"},
        {"at most", "no more than"},
    ]
    double = QUANTIFIER_COMPLEMENTS[provenance["complement"]]
    assert any({double, provenance["quantifier"]} <= group for group in same_meaning)


@pytest.mark.parametrize(
    "text",
    [
        "Ada Quill wrote more poems than Bo Lind.",
        "It changed over the years.",
        "Ada Quill is at least as tall as Bo Lind.",
    ],
)
def test_quantifiers_need_a_number(nlp, text):
    assert quantifier_edits(nlp(text)) == []


# ---------------------------------------------------------------- every probe, end to end


def _example(i):
    from tabprobe.probes import Example

    record = EXAMPLES.to_pylist()[i]
    return Example(record["uid"], record["table_id"], record["hypothesis"], record["label"])


@pytest.mark.parametrize("name", HYPOTHESIS_PROBES)
def test_every_edit_is_exactly_what_its_provenance_says(name, docs):
    out, coverage = generate(name, EXAMPLES, TABLES, seed=11, docs=docs)
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
    again, _ = generate(name, EXAMPLES, TABLES, seed=11, docs=docs)
    assert again.equals(out)


def test_hypothesis_probes_declare_their_parse_and_refuse_to_run_without_it():
    for name in HYPOTHESIS_PROBES:
        assert get_probe(name).needs_parse
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


# ---------------------------------------------------------------- the parse file


def test_parse_file_round_trips_and_rejects_stale_or_damaged_files(nlp, tmp_path):
    texts, uids = ["Ada Quill is a poet.", "Bo Lind lives in Oslo."], ["dev:2", "dev:3"]
    path = tmp_path / "dev.spacy"
    parsing.write(parsing.parse(nlp, texts, uids, ["T12", "T13"]), path)
    docs = parsing.read(path, zip(uids, texts))
    assert [docs[u].text for u in uids] == texts
    assert docs["dev:3"].user_data["table_id"] == "T13"
    assert [(e.text, e.label_) for e in docs["dev:3"].ents] == [(e.text, e.label_) for e in nlp(texts[1]).ents]
    with pytest.raises(CorruptFileError, match="does not match the examples"):
        parsing.read(path, [("dev:2", "Ada Quill is a painter.")])
    with pytest.raises(CorruptFileError, match="does not match the examples"):
        parsing.read(path, [("dev:9", "Bo Lind lives in Oslo.")])
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(CorruptFileError, match="cannot read"):
        parsing.read(path)


def test_parse_is_byte_identical_with_one_or_two_processes(nlp, tmp_path):
    texts = EXAMPLES["hypothesis"].to_pylist() * 3
    uids = [f"dev:{i}" for i in range(len(texts))]
    one = parsing.parse(nlp, texts, uids, batch_size=4, n_process=1).to_bytes()
    two = parsing.parse(nlp, texts, uids, batch_size=4, n_process=2).to_bytes()
    assert one == two


def test_an_unknown_spacy_model_is_a_clear_error():
    from tabprobe.errors import SetupError

    with pytest.raises(SetupError, match="not installed"):
        parsing.resolve_model("xx_no_such_model")
