"""Relevance, what the evidence probes (paper sections 5.2-5.3) and the counterfactuals (section 6)
share and how they are scored, and external probe sets, on tables and hypotheses written for these
tests. What each of those probes does is in tests/probes/test_probe_<name>.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infobox import aligner
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.infotabs import relevance
from tabprobe.data.infotabs.external import read_external_set
from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.errors import InputDataError
from tabprobe.probes import NotApplicable, ProbeContext, get_probe, register_external
from tabprobe.probes.generation import generate
from tabprobe.probes.infotabs.counterfactual.subject_swaps import swap_mentions
from tabprobe.probes.infotabs.evidence_edits import pair_tables
from tabprobe.probes.infotabs.titles import mentions, name_part
from tabprobe.scoring.pooled_columns import PAIRED_CORRECTNESS, score_paired_correctness
from tabprobe.scoring.probe_scores import Scorer, ScoringSettings, score_evidence_selection
from tabprobe.seeding import seeded_rng

FIXTURES = Path(__file__).resolve().parent / "fixtures"

POET = Table(
    "T1",
    "Ada Quill",
    (
        Row("Born", ("3 May 1901", "Lisbon, Portugal")),
        Row("Died", ("9 June 1970",)),
        Row("Occupation", ("Poet", "editor")),
        Row("Spouse(s)", ("Rui Vale",)),
        Row("Awards", ("Quill Prize",)),
    ),
    "Person",
)
SINGER = Table(
    "T2",
    "Bo Tarn",
    (
        Row("Born", ("1 July 1955", "Oslo, Norway")),
        Row("Occupation", ("Singer",)),
        Row("Spouse(s)", ("Mia Lund",)),
        Row("Genres", ("Folk",)),
    ),
    "Person",
)
ALBUM = Table(
    "T3",
    "The Grey Hours",
    (Row("Released", ("2 March 1979",)), Row("Length", ("46:06",)), Row("Genre", ("Pop", "art rock"))),
    "Album",
)
TABLES = {t.table_id: t for t in (POET, SINGER, ALBUM)}


# ---------------------------------------------------------------- the aligner


@pytest.mark.parametrize(
    "hypothesis, table, expected",
    [
        ("Ada Quill was born in Portugal.", POET, ["Born"]),
        ("Ada Quill married Rui Vale.", POET, ["Spouse(s)"]),
        ("Ada Quill was married.", POET, ["Spouse(s)"]),  # a cue word names the key
        ("Ada Quill died in the 1970s.", POET, ["Died"]),  # decade of a year in a value
        ("Ada Quill was a Portuguese poet.", POET, ["Born", "Occupation"]),  # Portuguese/Portugal share a stem
        ("Bo Tarn is a Norwegian singer.", SINGER, ["Born", "Occupation"]),  # Norwegian -> Norway
        ("The Grey Hours runs for 46 minutes and is a pop album.", ALBUM, ["Length", "Genre"]),
    ],
)
def test_aligner_finds_the_rows_a_hypothesis_names(hypothesis, table, expected):
    assert aligner.align(hypothesis, table) == expected


FILM = Table(
    "T10",
    "Hot Fuzz",
    (
        Row("Production company", ("Working Title Films",)),
        Row("Release date", ("16 February 2007",)),
        Row("Budget", ("$8 million",)),
        Row("Box office", ("$80.7 million",)),
    ),
    "Movie",
)
RECORD = Table(
    "T11",
    "Blue Hours",
    (Row("Released", ("4 November 2016",)), Row("Recorded", ("2015 - 16",)), Row("Label", ("Sun",))),
    "Album",
)
NATION = Table(
    "T12",
    "Republic of Costa Rica",
    (Row("Religion", ("57% Catholic", "2% Buddhism")), Row("2nd Vice-President", ("Marvin Ruiz",))),
    "Country",
)


@pytest.mark.parametrize(
    "hypothesis, table, expected",
    [
        # "film" names the subject's kind, not the row that says "Films"
        ("The film Hot Fuzz is from February.", FILM, ["Release date"]),
        ("Hot Fuzz was a profitable film.", FILM, ["Budget", "Box office"]),  # a cue word for money rows
        # a century no row states: the rows that hold a year
        ("Hot Fuzz is from the 20th century.", FILM, ["Release date"]),
        # the hypothesis's 2016 does not match the row's 2015 through their decade
        ("Blue Hours was released in 2016.", RECORD, ["Released"]),
        ("Blue Hours was recorded in two days.", RECORD, ["Recorded"]),  # "recorded" is no cue for Label
        # "2nd" is one word (not the 2 of "2%"), and "Rica's" is the title's "Rica"
        ("Costa Rica's 2nd Vice-President is a lawyer.", NATION, ["2nd Vice-President"]),
    ],
)
def test_aligner_leaves_out_the_rows_a_word_only_seems_to_name(hypothesis, table, expected):
    assert aligner.align(hypothesis, table) == expected


def test_the_title_in_the_hypothesis_does_not_make_a_row_relevant():
    table = Table(
        "T9", "Faro Isles", (Row("Religion", ("Church of the Faro Isles",)), Row("Capital", ("Tors",))), "Country"
    )
    assert aligner.align("The capital of the Faro Isles is Tors.", table) == ["Capital"]


def test_annotation_file_is_read_and_checked(tmp_path):
    good = tmp_path / "relevance.tsv"
    good.write_text(
        'table_id\thypothesis\trelevant_keys\tworker\nT1\tAda Quill was a poet.\t["Occupation"]\tw1\n'
        'T2\tBo Tarn sings.\t["Occupation", "Genres"]\tw2\n'
    )
    assert relevance.read_annotations(good, TABLES) == {
        ("T1", "Ada Quill was a poet."): ["Occupation"],
        ("T2", "Bo Tarn sings."): ["Occupation", "Genres"],
    }
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "table_id\thypothesis\trelevant_keys\nT1\tAda Quill was a poet.\tOccupation\n"
        'T1\tAda Quill wrote.\t["Ocupation"]\n'
    )
    with pytest.raises(InputDataError) as err:
        relevance.read_annotations(bad, TABLES)
    message = str(err.value)
    assert f"{bad}:2" in message and "not a JSON list" in message
    assert f"{bad}:3" in message and "'Ocupation'" in message and "not rows of table T1" in message
    no_header = tmp_path / "no_header.tsv"
    no_header.write_text("T1\tAda\t[]\n")
    with pytest.raises(InputDataError, match="lacks one of"):
        relevance.read_annotations(no_header, TABLES)


def test_relevance_from_annotations_covers_only_the_annotated_pairs(tmp_path):
    path = tmp_path / "relevance.tsv"
    path.write_text('table_id\thypothesis\trelevant_keys\nT1\tAda Quill was a poet.\t["Occupation"]\n')
    examples = pa.table(
        {
            "uid": ["dev:2", "dev:3"],
            "table_id": ["T1", "T1"],
            "hypothesis": ["Ada Quill was a poet.", "Ada Quill never married."],
            "label": ["E", "C"],
        },
        schema=schemas.EXAMPLES,
    )
    found, summary = relevance.relevance_table(examples, TABLES, "annotations", path)
    assert found["uid"].to_pylist() == ["dev:2"] and found["source"].to_pylist() == ["annotations:relevance.tsv"]
    assert summary == {
        "source": "annotations:relevance.tsv",
        "examples": 2,
        "with_relevant_rows": 1,
        "not_annotated": 1,
    }


def test_precision_recall_pools_rows_over_examples():
    scores = relevance.precision_recall({"a": ["X", "Y"], "b": []}, {"a": ["X"], "b": ["Z"]})
    assert scores["precision"] == 0.5 and scores["recall"] == 0.5 and scores["hits"] == 1


# ---------------------------------------------------------------- title mentions


def test_title_mentions_are_found_by_name_surname_case_and_possessive():
    assert name_part("Bryan Adams   OC OBC") == "Bryan Adams"
    assert name_part("Faroe Islands , Føroyar (Faroese)") == "Faroe Islands"
    text = "ada quill's poems outlived Quill herself."
    found = mentions(text, POET)
    assert [(text[m.start : m.end], m.kind) for m in found] == [("ada quill", "title"), ("Quill", "surname")]
    # a surname is only a name for people, and only capitalised ("quill" is a feather)
    assert mentions("Hours passed.", ALBUM) == [] and mentions("She wrote with a quill.", POET) == []
    assert [m.kind for m in mentions("Grey Hours was released in 1979.", ALBUM)] == ["name"]  # "The" dropped


def test_title_swap_replaces_every_mention_and_keeps_the_possessive():
    text, edits = swap_mentions("Ada Quill's husband outlived Quill.", POET, {"name": "Bo Tarn", "surname": "Tarn"})
    assert text == "Bo Tarn's husband outlived Tarn."
    assert [e["kind"] for e in edits] == ["title", "surname"]
    with pytest.raises(NotApplicable, match="never names"):
        swap_mentions("She wrote poems.", POET, {"name": "Bo Tarn"})
    with pytest.raises(NotApplicable, match="about the subject's name"):
        swap_mentions("Ada Quill was named after her aunt.", POET, {"name": "Bo Tarn"})


def test_table_pairs_are_mutual_seeded_and_stay_in_their_group():
    tables = {f"T{i}": Table(f"T{i}", f"Name {i}", (), "Person" if i < 4 else "Album") for i in range(8)}
    tables["T8"] = Table("T8", "Alone", (), "River")
    partners = pair_tables(tables, 3, "cf_title_swap")
    assert partners == pair_tables(tables, 3, "cf_title_swap")
    assert "T8" not in partners  # alone in its category: no partner from another
    assert all(partners[t] != t and tables[t].category == tables[partners[t]].category for t in partners)
    assert set(partners) == set(tables) - {"T8"}
    mutual = [t for t in partners if partners[partners[t]] == t]
    assert len(mutual) == 8  # four Person, four Album: every pair mutual


# ---------------------------------------------------------------- external probe sets


def test_external_set_pairs_with_gold_examples_and_keeps_extra_columns(mini_infotabs):
    gold = ingest_split(mini_infotabs, "alpha1").examples
    examples, coverage = read_external_set(FIXTURES / "external_cf_alpha1", "my_cf", "alpha1", gold)
    records = examples.to_pylist()
    assert [r["table_id"] for r in records] == ["T7A", "T7A", "T10A", "X-99"]
    by_hypothesis = {g["hypothesis"]: g for g in gold.to_pylist()}
    first = records[0]
    assert first["orig_uid"] == by_hypothesis[first["hypothesis"]]["uid"]
    assert first["label"] == "E" and first["expected"] == "C"  # label flipped
    assert json.loads(first["provenance"])["extra"] == {"annotator": "A1", "note": "founding year moved to 1951"}
    assert records[3]["orig_uid"] == records[3]["uid"] == "my_cf:5"  # paired with nothing
    assert coverage["skipped"] == {"scored, but paired with no gold example of alpha1": 1}


def test_an_external_set_reads_like_its_clean_copy_with_bom_crcrlf_quotes_and_linked_tables(tmp_path, mini_infotabs):
    """As sets arrive from other researchers: a BOM, lines converted to CRLF twice, CSV quoting,
    and the tables folder a symbolic link into another folder."""
    gold = ingest_split(mini_infotabs, "alpha1").examples
    folder = tmp_path / "set"
    shutil.copytree(FIXTURES / "external_cf_alpha1", folder)
    tsv = folder / "counterfactuals.tsv"
    lines = tsv.read_text(encoding="utf-8").rstrip("\n").split("\n")
    lines[2] = lines[2].replace(
        "The Order of Tidewatchers is based in Vellmora.", '"The Order of Tidewatchers is based in ""Vellmora""."'
    )
    tsv.write_bytes("\ufeff".encode() + "\r\r\n".join(lines).encode() + b"\r\r\n")
    (folder / "tables").rename(tmp_path / "kept_elsewhere")
    (folder / "tables").symlink_to(tmp_path / "kept_elsewhere", target_is_directory=True)

    examples, coverage = read_external_set(folder, "my_cf", "alpha1", gold)
    clean, clean_coverage = read_external_set(FIXTURES / "external_cf_alpha1", "my_cf", "alpha1", gold)

    records, clean_records = examples.to_pylist(), clean.to_pylist()
    assert records[1]["hypothesis"] == 'The Order of Tidewatchers is based in "Vellmora".'
    for record, want in zip(records, clean_records):
        got = json.loads(record.pop("provenance"))
        expected = json.loads(want.pop("provenance"))
        assert got["extra"] == expected["extra"]  # no stray "\r" in the last column
        if record["uid"] != "my_cf:3":
            assert record == want
    assert coverage["skipped"] == {"scored, but paired with no gold example of alpha1": 2}
    assert clean_coverage["skipped"] == {"scored, but paired with no gold example of alpha1": 1}


def test_an_external_sets_coverage_counts_paired_lines_whose_original_is_outside_originals_cap(tmp_path, mini_infotabs):
    from tabprobe import stages
    from tabprobe.data.infotabs.reading import load_tables
    from tabprobe.io import write_parquet

    ingested = ingest_split(mini_infotabs, "alpha1")
    examples_path = tmp_path / "alpha1.parquet"
    write_parquet(ingested.examples, examples_path, schemas.EXAMPLES)
    paired = [
        r["orig_uid"]
        for r in read_external_set(FIXTURES / "external_cf_alpha1", "my_cf", "alpha1", ingested.examples)[0].to_pylist()
        if r["uid"] != r["orig_uid"]
    ]
    # `original` capped so that it keeps the gold example of one paired line and not the others
    kept = ingested.examples.filter(pa.compute.equal(ingested.examples["uid"], paired[0]))
    original, _ = generate("original", kept, load_tables(ingested.tables), seed=1)
    original_path = tmp_path / "original.parquet"
    write_parquet(original, original_path, infobox.PROBE_EXAMPLES)

    stages.ingest_external_probe(
        "my_cf",
        "alpha1",
        str(FIXTURES / "external_cf_alpha1"),
        str(examples_path),
        str(tmp_path / "p.parquet"),
        str(tmp_path / "c.json"),
        original_path=str(original_path),
    )

    skipped = json.loads((tmp_path / "c.json").read_text())["skipped"]
    outside = sum(1 for uid in paired if uid != paired[0])
    assert outside > 0
    assert skipped == {
        "scored, but paired with no gold example of alpha1": 1,
        "scored, but its gold example is outside `original`'s 1 (its cap): not in the paired drop": outside,
    }


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (
            lambda d: (d / "counterfactuals.tsv").write_text("table_id\thypothesis\tlabel\nT7A\tX.\tmaybe\n"),
            ":2: label 'maybe'",
        ),
        (lambda d: (d / "tables" / "T10A.json").unlink(), ":4: table T10A has no file T10A.json"),
        (lambda d: (d / "second.tsv").write_text("table_id\thypothesis\tlabel\n"), "needs exactly one .tsv file"),
        (lambda d: (d / "tables" / "T7A.json").write_text('{"title": ["x"],'), "T7A.json:1: malformed JSON"),
    ],
)
def test_malformed_external_sets_fail_with_file_line_and_reason(tmp_path, mini_infotabs, corrupt, message):
    folder = tmp_path / "set"
    shutil.copytree(FIXTURES / "external_cf_alpha1", folder)
    corrupt(folder)
    with pytest.raises(InputDataError, match="How to fix") as err:
        read_external_set(folder, "my_cf", "alpha1", ingest_split(mini_infotabs, "alpha1").examples)
    assert message in str(err.value)


def test_an_external_set_becomes_a_counterfactual_probe():
    probe = register_external("my_flipped_set", "flipped")
    assert get_probe("my_flipped_set") is probe
    assert probe.judged_by == "expected" and probe.family == "counterfactual" and probe.label_change == "flipped"
    with pytest.raises(ValueError, match="name of a built-in probe"):
        register_external("row_deletion", None)


# ---------------------------------------------------------------- scoring


def test_evidence_selection_scores_against_hand_counted_values():
    # Two gold examples. g1 (gold E, predicted E): rows 0,1 relevant; deleting rows 0 and 2 moves
    # the prediction -> uses some (1 of 2), precision 1/2, recall 1/2. g2 (gold C, predicted E,
    # wrong): row 0 relevant; no deletion moves it -> ignores the table, precision 0, recall 0.
    rows = []
    for uid, label, relevant in (("g1", "E", {0, 1}), ("g2", "C", {0})):
        for i in range(3):
            rows.append(
                {
                    "orig_uid": uid,
                    "label": label,
                    "provenance": json.dumps({"deleted_row": {"index": i}, "relevant": i in relevant}),
                }
            )
    examples = pa.Table.from_pylist(rows)
    before = np.array(["E"] * 6, dtype=object)
    pred = np.array(["N", "E", "C", "E", "E", "E"], dtype=object)
    settings = ScoringSettings(samplings=50, fraction=1.0, bootstrap=50, seed=1)
    scores = {
        (r["statistic"], r["label"]): r for r in score_evidence_selection(examples, before, pred, settings, "dev", "ev")
    }
    assert scores[("evidence_precision", "macro")]["mean"] == pytest.approx(25.0)
    assert scores[("evidence_recall", "macro")]["mean"] == pytest.approx(25.0)
    assert scores[("evidence_precision", "micro")]["mean"] == pytest.approx(50.0)
    assert scores[("evidence_recall", "micro")]["mean"] == pytest.approx(100 / 3)
    assert scores[("uses_some_relevant_pct", "all")]["mean"] == pytest.approx(50.0)
    assert scores[("uses_all_relevant_pct", "all")]["mean"] == pytest.approx(0.0)
    assert scores[("ignores_table_pct", "all")]["mean"] == pytest.approx(50.0)
    assert scores[("uses_wrong_or_no_rows_pct", "correct")]["mean"] == pytest.approx(0.0)
    assert scores[("uses_some_relevant_pct", "correct")]["mean"] == pytest.approx(50.0)


def test_paired_correctness_cells_partition_the_examples():
    cf = np.array([True, False, False, True])
    orig = np.array([False, True, True, True])
    hypo = np.array([False, False, True, True])
    scorer = Scorer(4, ScoringSettings(samplings=20, fraction=1.0, bootstrap=20, seed=2), "t8")
    cells = {r["label"]: r["mean"] for r in score_paired_correctness(cf, orig, hypo, scorer)}
    assert set(cells) == set(PAIRED_CORRECTNESS)
    assert cells["100"] == cells["010"] == cells["011"] == cells["111"] == pytest.approx(25.0)
    assert sum(cells.values()) == pytest.approx(100.0)


def test_counterfactual_contexts_are_seeded_per_run():
    # the pairing for cf_title_swap depends on the run's seed, not on the order of examples
    ctx = ProbeContext(rng=seeded_rng(1, "x"), tables=TABLES, seed=11)
    assert ctx.seed == 11
