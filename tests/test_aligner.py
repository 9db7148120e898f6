"""The aligner with soft matches (tabprobe.data.infobox.aligner.Aligner, word_vectors.py): the vote of
each hypothesis word on hand-made vectors, the real MiniLM finding rows that share no word with the
hypothesis, determinism, and its settings as config key relevance.aligner. Its measured quality on rows
people marked is in tests/test_relevance.py; the words-only rules in tests/test_evidence.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import yaml

from tabprobe import schemas
from tabprobe.data.infobox import aligner
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.infobox.word_vectors import DEFAULT_ENCODER, WordVectors, encoder_dir
from tabprobe.data.infotabs import relevance
from tabprobe.data.infotabs.relevance import find_relevant_rows
from tabprobe.errors import SetupError
from tabprobe.io import read_parquet, write_parquet

ROOT = Path(__file__).resolve().parents[1]

DRINK = Table(
    "T3",
    "Zip Cola",
    (
        Row("Type", ("Soft drink",)),
        Row("Manufacturer", ("Zip Ltd",)),
        Row("Variants", ("Zip Zero (no sugar)", "Zip Cherry")),
        Row("Introduced", ("1984",)),
    ),
    "Product",
)
FILM = Table(
    "T2",
    "Night Bus",
    (
        Row("Directed by", ("Tom Reed",)),
        Row("Running time", ("95 minutes",)),
        Row("Budget", ("$2 million",)),
        Row("Box office", ("$30 million",)),
    ),
    "Movie",
)
PERSON = Table(
    "T4",
    "Ida Brown",
    (
        Row("Born", ("3 May 1950", "Leeds, England")),
        Row("Occupation", ("Actress", "singer")),
        Row("Spouse(s)", ("Tom Lee (m. 1975)",)),
        Row("Years active", ("1970 - present",)),
    ),
    "Person",
)


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def vectors(pairs: list[tuple[str, np.ndarray]]) -> WordVectors:
    return WordVectors(tuple(w for w, _ in pairs), np.array([v for _, v in pairs], dtype=np.float32))


# ---------------------------------------------------------------- the vote, on hand-made vectors

# Four directions: cosines between them are exact, so every vote below is counted by hand.
SUGAR, DRINKS, MAKER, YEAR = unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(0, 0, 1, 0), unit(0, 0, 0, 1)
TABLE = Table("T9", "Zip Cola", (Row("Type", ("Soft drink",)), Row("Variants", ("Zero sugar",))), "Product")
ROWS = [
    vectors([("type", MAKER), (":", MAKER), ("soft", DRINKS), ("drink", DRINKS)]),
    vectors([("variants", MAKER), (":", MAKER), ("zero", SUGAR), ("sugar", SUGAR)]),
]


def test_each_hypothesis_word_votes_for_the_row_of_its_closest_word_with_that_cosine():
    diet = unit(0.8, 0.6, 0, 0)  # cosine 0.8 with the sugar words (Variants), 0.6 with the drink words (Type)
    beverage = unit(0.1, 0.9, 0, 0.3)  # closest to Type's drink words
    hypothesis = vectors([("diet", diet), ("beverage", beverage)])
    votes = aligner.soft_votes(hypothesis, ROWS, TABLE, aligner.AlignerSettings())
    assert votes == [pytest.approx(round(float(beverage @ DRINKS), 4)), pytest.approx(0.8)]


def test_words_below_min_similarity_the_title_and_stop_words_do_not_vote():
    far = unit(0.2, 0.1, 0, 0.97)  # closest to sugar, but only 0.2 close: below min_similarity 0.3
    hypothesis = vectors([("zip", SUGAR), ("cola", SUGAR), ("the", SUGAR), ("far", far)])
    assert aligner.soft_votes(hypothesis, ROWS, TABLE, aligner.AlignerSettings()) == [0.0, 0.0]
    # With a lower threshold the far word votes; the title's words and "the" still do not.
    low = aligner.AlignerSettings(min_similarity=0.1)
    assert aligner.soft_votes(hypothesis, ROWS, TABLE, low) == [0.0, pytest.approx(round(float(far @ SUGAR), 4))]


def test_a_word_equally_close_to_two_rows_votes_for_the_earlier_one():
    hypothesis = vectors([("fizzy", unit(1, 1, 0, 0))])
    assert aligner.soft_votes(hypothesis, ROWS, TABLE, aligner.AlignerSettings()) == [pytest.approx(0.7071), 0.0]


def test_a_row_without_content_words_gets_no_vote():
    empty = vectors([(":", MAKER)])
    hypothesis = vectors([("maker", MAKER)])
    assert aligner.soft_votes(hypothesis, [empty, ROWS[0]], TABLE, aligner.AlignerSettings()) == [0.0, 1.0]


# ---------------------------------------------------------------- with MiniLM


@pytest.fixture(scope="module")
def minilm():
    return aligner.Aligner(aligner.AlignerSettings())


@pytest.mark.parametrize(
    "hypothesis, table, expected",
    [
        # No word of these is in the row, so the words-only aligner finds nothing.
        ("Zip Cola comes in a diet version.", DRINK, ["Variants"]),
        ("Zip Cola is a carbonated beverage.", DRINK, ["Type"]),
    ],
)
def test_soft_matches_find_a_row_that_shares_no_word_with_the_hypothesis(minilm, hypothesis, table, expected):
    assert aligner.align(hypothesis, table) == []
    assert minilm.align_all([(hypothesis, table)]) == [expected]


@pytest.mark.parametrize(
    "hypothesis, table, expected",
    [
        ("Night Bus lasts about an hour and a half.", FILM, ["Running time"]),
        ("Ida Brown has a husband.", PERSON, ["Spouse(s)"]),  # a cue word, and its soft match
        ("Ida Brown is a British performer.", PERSON, ["Born", "Occupation"]),
        ("Ida Brown retired in the 1990s.", PERSON, ["Years active"]),
        ("Zip Cola has a cherry flavour.", DRINK, ["Variants"]),
    ],
)
def test_soft_matches_keep_what_the_words_found(minilm, hypothesis, table, expected):
    assert aligner.align(hypothesis, table) == expected
    assert minilm.align_all([(hypothesis, table)]) == [expected]


def test_a_score_is_the_words_score_plus_soft_weight_times_the_votes(minilm):
    hypothesis = "Zip Cola comes in a diet version."
    words = aligner.row_scores(hypothesis, DRINK, minilm.settings)
    heavier = aligner.Aligner(aligner.AlignerSettings(soft_weight=4.0))
    heavier.encoder = minilm.encoder  # the same vectors, a second weight
    both, double = minilm.scores(hypothesis, DRINK), heavier.scores(hypothesis, DRINK)
    assert max(both) > 0 and words == [0.0] * 4
    assert double == pytest.approx([2 * s for s in both])


def test_a_pair_aligns_alike_alone_and_among_others(minilm):
    pairs = [
        ("Zip Cola comes in a diet version.", DRINK),
        ("Night Bus lasts about an hour and a half.", FILM),
        ("Ida Brown is a British performer.", PERSON),
    ]
    together = minilm.align_all(pairs)
    assert together == [minilm.align_all([pair])[0] for pair in pairs]
    assert together == aligner.Aligner(aligner.AlignerSettings()).align_all(list(reversed(pairs)))[::-1]


def test_the_words_only_aligner_is_align_and_align_refuses_an_encoder():
    words_only = aligner.Aligner(aligner.WORDS_ONLY)
    assert words_only.encoder is None
    assert words_only.align_all([("Ida Brown has a husband.", PERSON)]) == [["Spouse(s)"]]
    with pytest.raises(ValueError, match="use Aligner"):
        aligner.align("Ida Brown has a husband.", PERSON, aligner.AlignerSettings())


def test_the_relevance_step_writes_the_same_bytes_twice(tmp_path):
    """Rule find_relevant_rows with the default aligner, run twice on the same inputs."""
    examples = pa.table(
        {
            "uid": ["dev:1", "dev:2", "dev:3", "dev:4"],
            "table_id": ["T3", "T3", "T2", "T4"],
            "hypothesis": [
                "Zip Cola comes in a diet version.",
                "Zip Cola is a carbonated beverage.",
                "Night Bus made a profit.",
                "Ida Brown performs on stage.",
            ],
            "label": ["E", "N", "C", "E"],
        },
        schema=schemas.EXAMPLES,
    )
    tables = pa.Table.from_pylist([t.to_arrow() for t in (DRINK, FILM, PERSON)], schema=infobox.TABLES)
    write_parquet(examples, tmp_path / "examples.parquet", schemas.EXAMPLES)
    write_parquet(tables, tmp_path / "tables.parquet", infobox.TABLES)
    outputs = []
    for run in ("a", "b"):
        out, summary = tmp_path / f"{run}.parquet", tmp_path / f"{run}.json"
        find_relevant_rows(
            str(tmp_path / "examples.parquet"), str(tmp_path / "tables.parquet"), str(out), str(summary), "aligner"
        )
        outputs.append((out.read_bytes(), summary.read_bytes()))
    assert outputs[0] == outputs[1]
    found = read_parquet(tmp_path / "a.parquet", schemas.RELEVANCE).to_pylist()
    assert [r["relevant_keys"] for r in found[:2]] == [["Variants"], ["Type"]]
    assert json.loads(outputs[0][1]) == {
        "source": "aligner",
        "examples": 4,
        "with_relevant_rows": 4,
        "not_annotated": 0,
    }


def test_the_relevance_step_takes_the_aligner_settings_of_config(tmp_path):
    """relevance.aligner: {encoder: null, min_score: 0.5}: the words-only aligner, no encoder loaded."""
    examples = pa.table(
        {"uid": ["dev:1"], "table_id": ["T3"], "hypothesis": ["Zip Cola comes in a diet version."], "label": ["E"]},
        schema=schemas.EXAMPLES,
    )
    write_parquet(examples, tmp_path / "examples.parquet", schemas.EXAMPLES)
    write_parquet(
        pa.Table.from_pylist([DRINK.to_arrow()], schema=infobox.TABLES), tmp_path / "t.parquet", infobox.TABLES
    )
    out = tmp_path / "relevance.parquet"
    settings = {"encoder": None, "min_score": 0.5}
    find_relevant_rows(
        str(tmp_path / "examples.parquet"),
        str(tmp_path / "t.parquet"),
        str(out),
        str(tmp_path / "s.json"),
        "aligner",
        aligner=settings,
    )
    assert read_parquet(out, schemas.RELEVANCE)["relevant_keys"].to_pylist() == [[]]


# ---------------------------------------------------------------- settings and the encoder's location


def test_config_defaults_are_the_aligners_defaults():
    """The schema's relevance.aligner defaults, config.yaml's values and AlignerSettings agree, so the
    workflow runs the aligner that bench/relevance.py measured."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    block = schema["properties"]["relevance"]["properties"]["aligner"]["properties"]
    assert sorted(block) == sorted(relevance.ALIGNER_CONFIG_KEYS)
    defaults = aligner.AlignerSettings()
    assert {k: v["default"] for k, v in block.items()} == {k: getattr(defaults, k) for k in block}
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert config["relevance"]["aligner"] == {k: getattr(defaults, k) for k in block}
    assert relevance.aligner_settings(config["relevance"]["aligner"]) == defaults
    assert defaults.encoder == DEFAULT_ENCODER


def test_an_unknown_aligner_key_is_named():
    with pytest.raises(ValueError, match=r"relevance.aligner: unknown keys \['soft_weigth'\]"):
        relevance.aligner_settings({"soft_weigth": 2.0})


def test_the_encoder_location_is_checked_with_a_way_out(tmp_path):
    assert (encoder_dir(DEFAULT_ENCODER) / "model.safetensors").is_file()
    with pytest.raises(
        SetupError, match="package 'no_such_encoder' is not installed.*set relevance.aligner.encoder to null"
    ):
        encoder_dir("pkg://no_such_encoder/model")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(SetupError, match=r"is not a folder holding \*.safetensors weights"):
        aligner.Aligner(aligner.AlignerSettings(encoder=str(tmp_path)))
