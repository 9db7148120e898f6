"""The relevance source: the annotation reader (TSV and the paper's crowd CSV), the find_relevant_rows
job with annotations, and the aligner's measured quality on rows people marked (bench/relevance.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infotabs import ingest, relevance
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.data.infotabs.relevance import find_relevant_rows
from tabprobe.data.infotabs.table import Row, Table
from tabprobe.errors import InputDataError
from tabprobe.io import read_parquet, write_parquet

ROOT = Path(__file__).resolve().parents[1]
SHARED_CROWD = ROOT.parent / "shared" / "infotabs-relevance"
CROWD_FILE = SHARED_CROWD / "annotation_analysis_scripts" / "data" / "results" / "remaining_annotations.csv"

BAND = Table(
    "T7",
    "Grey Owls",
    (
        Row("Origin", ("Leeds, England",)),
        Row("Genres", ("Folk", "rock")),
        Row("Years active", ("1999 - present",)),
        Row("Labels", ("Sun Records",)),
    ),
    "Musician",
)
TABLES = {"T7": BAND}
HEADER = "Table ID,Hypothesis,Generator ID,Truth Label,Worker IDs,Labels,Majority Label,JSON\n"


def crowd_line(hypothesis: str, labels: list[str], majority: str, keys=("Origin", "Genres", "Years active", "Labels")):
    """One line of the crowd CSV as upstream writes it (CSV quoting, Python-literal lists, JSON)."""
    named = json.dumps(dict(zip([*keys, "none"], majority)))
    workers = [f"MTW0{i}" for i in range(1, len(labels) + 1)]
    quote = lambda text: '"' + text.replace('"', '""') + '"'  # noqa: E731
    return f"T7,{quote(hypothesis)},GW1,E,{quote(str(workers))},{quote(str(labels))},{majority},{quote(named)}\n"


# ---------------------------------------------------------------- the crowd CSV


def test_crowd_csv_gives_the_majority_rows_and_keeps_the_outside_bit_apart(tmp_path):
    path = tmp_path / "remaining_annotations.csv"
    path.write_text(
        HEADER
        # 3 of 5 mark Genres, 2 of 5 Labels: only Genres is a majority; the outside bit has 4 of 5.
        + crowd_line("Grey Owls play folk rock.", ["01001", "01011", "01001", "00001", "01010"], "01001")
        + crowd_line("Grey Owls formed in 1999 in Leeds.", ["10100"] * 5, "10100")
        + crowd_line("Grey Owls have fans.", ["00001", "00000", "00001", "00001", "10000"], "00001")
    )
    found = relevance.read_annotation_file(path, TABLES)
    assert found[("T7", "Grey Owls play folk rock.")] == relevance.Annotation(("Genres",), True, 2)
    assert found[("T7", "Grey Owls formed in 1999 in Leeds.")] == relevance.Annotation(
        ("Origin", "Years active"), False, 3
    )
    # Only information outside the table: no row, and the flag says why.
    assert found[("T7", "Grey Owls have fans.")] == relevance.Annotation((), True, 4)
    # The plain reader (what relevance_table uses) gives the keys alone; without the tables, the
    # JSON column names the rows.
    assert relevance.read_annotations(path, TABLES)[("T7", "Grey Owls play folk rock.")] == ["Genres"]
    assert relevance.read_annotations(path) == relevance.read_annotations(path, TABLES)


def test_crowd_csv_is_told_apart_by_its_header_whatever_the_file_is_called(tmp_path):
    path = tmp_path / "relevance.txt"
    path.write_text(HEADER + crowd_line("Grey Owls play folk rock.", ["01000"] * 5, "01000"))
    assert relevance.read_annotations(path, TABLES) == {("T7", "Grey Owls play folk rock."): ["Genres"]}


@pytest.mark.parametrize(
    "line, message",
    [
        (
            crowd_line("Too few bits.", ["0100"] * 5, "0100", keys=("Origin", "Genres", "Labels")),
            "has 4 bits; table T7 has 4 rows, so it needs 5",
        ),
        (
            crowd_line("Wrong majority.", ["01000", "01000", "00000", "00000", "00000"], "01000"),
            "is not the per-row majority of Labels",
        ),
        (crowd_line("Not bits.", ["01000"] * 5, "01x00"), "is not a string of 0/1 bits"),
        (
            crowd_line(
                "Rows in another order.", ["01000"] * 5, "01000", keys=("Genres", "Origin", "Years active", "Labels")
            ),
            "the bits do not match the table",
        ),
        ('T7,"Cut short.",GW1,E,"[\'MTW01\']","[\'01000\'",01000,"{}"\n', "is not a Python list of 0/1 bit strings"),
        ("T7,Three fields only,GW1\n", "3 fields, the header has 8"),
    ],
)
def test_a_damaged_crowd_line_is_named_by_file_and_line(tmp_path, line, message):
    path = tmp_path / "remaining_annotations.csv"
    path.write_text(HEADER + crowd_line("Grey Owls play folk rock.", ["01000"] * 5, "01000") + line)
    with pytest.raises(InputDataError) as err:
        relevance.read_annotation_file(path, TABLES)
    assert f"{path}:3: " in str(err.value) and message in str(err.value)
    assert f"{path}:2" not in str(err.value)  # the good line is not blamed
    assert "Majority Label" in err.value.fix and "relevant_keys" in err.value.fix


def test_a_csv_without_the_crowd_columns_names_them(tmp_path):
    path = tmp_path / "relevance.csv"
    path.write_text("table,hypothesis,rows\nT7,Grey Owls rock.,Genres\n")
    with pytest.raises(
        InputDataError, match=r"relevance.csv:1: header .* lacks one of \['Table ID', 'Hypothesis', 'Majority Label'\]"
    ):
        relevance.read_annotation_file(path, TABLES)


def test_a_pair_annotated_twice_must_agree(tmp_path):
    path = tmp_path / "relevance.tsv"
    path.write_text(
        'table_id\thypothesis\trelevant_keys\nT7\tGrey Owls rock.\t["Genres"]\nT7\tGrey  Owls rock.\t["Genres"]\n'
        'T7\tGrey Owls rock.\t["Labels"]\n'
    )
    with pytest.raises(InputDataError) as err:
        relevance.read_annotations(path, TABLES)
    assert f"{path}:4: annotates the pair of line 2 again" in str(err.value) and f"{path}:3" not in str(err.value)


def test_find_relevant_rows_takes_the_crowd_csv_as_annotations(tmp_path):
    """What rule find_relevant_rows runs, with `relevance: {source: annotations, annotations: <csv>}`."""
    crowd = tmp_path / "remaining_annotations.csv"
    crowd.write_text(
        HEADER
        # as copied from the raw InfoTabS TSV: an HTML entity and a double space, which ingest cleans
        + crowd_line("Grey Owls play folk  &amp; rock.", ["01001"] * 5, "01001")
        + crowd_line("Grey Owls have fans.", ["00001"] * 5, "00001")
    )
    examples = pa.table(
        {
            "uid": ["dev:2", "dev:3", "dev:4"],
            "table_id": ["T7", "T7", "T7"],
            "hypothesis": ["Grey Owls play folk & rock.", "Grey Owls have fans.", "Grey Owls split up."],
            "label": ["E", "N", "C"],
        },
        schema=schemas.EXAMPLES,
    )
    tables = pa.Table.from_pylist([BAND.to_arrow()], schema=schemas.TABLES)
    write_parquet(examples, tmp_path / "examples.parquet", schemas.EXAMPLES)
    write_parquet(tables, tmp_path / "tables.parquet", schemas.TABLES)
    out, summary = tmp_path / "relevance.parquet", tmp_path / "relevance.json"
    find_relevant_rows(
        str(tmp_path / "examples.parquet"),
        str(tmp_path / "tables.parquet"),
        str(out),
        str(summary),
        "annotations",
        str(crowd),
    )
    found = read_parquet(out, schemas.RELEVANCE).to_pylist()
    assert [(r["uid"], r["relevant_keys"], r["source"]) for r in found] == [
        ("dev:2", ["Genres"], "annotations:remaining_annotations.csv"),
        ("dev:3", [], "annotations:remaining_annotations.csv"),
    ]
    assert json.loads(summary.read_text()) == {
        "source": "annotations:remaining_annotations.csv",
        "examples": 3,
        "with_relevant_rows": 1,
        "not_annotated": 1,
    }


# ---------------------------------------------------------------- the human ceiling (bench/relevance.py)


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import relevance as bench

    return bench


def test_worker_marks_are_each_workers_rows_without_the_outside_bit(tmp_path, bench):
    path = tmp_path / "remaining_annotations.csv"
    path.write_text(
        HEADER + crowd_line("Grey Owls play folk rock.", ["01001", "01011", "01001", "00001", "01010"], "01001")
    )
    relevance.read_annotation_file(path, TABLES)  # what the bench reads first: the file is sound
    assert bench.worker_marks(path, TABLES) == {
        ("T7", "Grey Owls play folk rock."): [
            ("Genres",),
            ("Genres", "Labels"),
            ("Genres",),
            (),  # only information outside the table
            ("Genres", "Labels"),
        ]
    }


# Two pairs of BAND, 5 workers each. In the first, with one worker left out, the other four split
# 2-2 on Genres (workers 0 and 1 left out) or on Labels (worker 4 left out); the second is unanimous.
SPLIT = [("Genres",), ("Genres",), ("Genres", "Labels"), ("Labels",), ()]
UNANIMOUS = [("Origin", "Years active")] * 5


def test_leave_one_out_reference_is_the_others_majority_with_a_stated_tie_rule(bench):
    # worker 0 left out: the others mark Genres 2 times of 4 and Labels 2 of 4
    assert bench.leave_one_out(SPLIT, "relevant")[0] == (("Genres",), ["Genres", "Labels"])
    assert bench.leave_one_out(SPLIT, "not relevant")[0] == (("Genres",), [])
    # worker 4 left out: Genres 3 of 4 is a majority under either rule; Labels 2 of 4 is a tie
    assert bench.leave_one_out(SPLIT, "relevant")[4] == ((), ["Genres", "Labels"])
    assert bench.leave_one_out(SPLIT, "not relevant")[4] == ((), ["Genres"])
    assert bench.leave_one_out(UNANIMOUS, "not relevant") == [(UNANIMOUS[0], list(UNANIMOUS[0]))] * 5
    with pytest.raises(ValueError, match="tie must be one of"):
        bench.leave_one_out(SPLIT, "coin")


def test_one_worker_against_the_other_four_pools_every_pair_and_worker(bench):
    pairs = [
        {"uid": "a", "hypothesis": "", "table": BAND, "keys": ["Genres"], "workers": SPLIT},
        {"uid": "b", "hypothesis": "", "table": BAND, "keys": ["Origin", "Years active"], "workers": UNANIMOUS},
    ]
    # Counted by hand. Tie relevant: pair a's references are {G, L}, {G, L}, {G}, {G}, {G, L} against
    # the workers' {G}, {G}, {G, L}, {L}, {}: 3 hits of 5 marked rows and 8 reference rows; pair b adds
    # 10 hits of 10 and 10, and 5 exact matches.
    ties_relevant = bench.against_the_others(pairs, "relevant")
    assert ties_relevant["precision"] == pytest.approx(13 / 15) and ties_relevant["recall"] == pytest.approx(13 / 18)
    assert (ties_relevant["exact"], ties_relevant["examples"], ties_relevant["comparisons"]) == (0.5, 2, 10)
    # Tie not relevant: pair a's references are {}, {}, {}, {G}, {G}: no hit, 5 marked rows, 2 reference rows.
    ties_not = bench.against_the_others(pairs, "not relevant")
    assert ties_not["precision"] == pytest.approx(10 / 15) and ties_not["recall"] == pytest.approx(10 / 12)
    assert ties_not["gold_rows"] == 12 and ties_not["predicted_rows"] == 15
    # A method's rows are scored against the same 10 references, once per worker.
    aligned = bench.against_the_others(pairs, "relevant", {"a": ["Genres"], "b": ["Origin"]})
    assert (aligned["hits"], aligned["predicted_rows"], aligned["gold_rows"]) == (10, 10, 18)


def test_evaluate_prints_the_ceiling_beside_the_methods_only_where_workers_are_known(bench):
    pairs = [
        {"uid": "a", "hypothesis": "Grey Owls play folk.", "table": BAND, "keys": ["Genres"], "part": "tuning"},
        {"uid": "b", "hypothesis": "Formed in 1999.", "table": BAND, "keys": ["Years active"], "part": "heldout"},
    ]
    with_workers = [p | {"workers": w} for p, w in zip(pairs, (SPLIT, UNANIMOUS))]
    results = bench.evaluate({"human": with_workers, "gold": pairs}, resamples=200)
    ceiling = "one worker vs the other four, tie relevant"
    assert ceiling in results["human"]["all"] and ceiling not in results["gold"]["all"]
    pooled = bench.against_the_others(with_workers, "relevant")
    assert {k: results["human"]["all"][ceiling][k] for k in pooled} == pooled
    assert results["human"]["tuning"][ceiling]["comparisons"] == 5
    assert "aligner vs the other four, tie not relevant" in results["human"]["heldout"]
    assert "aligner minus one worker, tie relevant" in results["human"]["all"]
    # Every figure has its interval, around it; the F1 differences are paired.
    assert set(results["gold"]["all"]["aligner minus aligner, words only"]) == {"f1", "f1_interval"}
    for r in (r for r in results["gold"]["all"].values() if "examples" in r):
        for name in ("precision", "recall", "f1"):
            low, high = r[f"{name}_interval"]
            assert low <= r[name] <= high


def test_bootstrap_intervals_resample_pairs_and_keep_a_pairs_workers_together(bench):
    # Two pairs: one with 2 hits of 2 predicted and 2 gold rows, one with 0 of 1 predicted and 2 gold.
    counts = np.array([[2, 2, 2], [0, 1, 2]])
    weights = bench.resample_weights(2, 500, seed=1)
    assert weights.shape == (500, 2) and (weights.sum(axis=1) == 2).all()
    assert (weights == bench.resample_weights(2, 500, seed=1)).all()  # seeded
    found = bench.intervals(counts, weights)
    # A resample holds pair 1 twice (precision 1), pair 2 twice (precision 0), or both (2/3).
    assert found["precision_interval"] == [0.0, 1.0] and found["recall_interval"] == [0.0, 1.0]
    assert found["f1_interval"][0] == 0.0 and found["f1_interval"][1] == 1.0
    # A pair's worker comparisons are summed before resampling: one row per pair.
    pairs = [{"uid": "a"}, {"uid": "b"}]
    predicted = {"a#0": ["x"], "a#1": ["x", "y"], "b#0": []}
    gold = {"a#0": ["x"], "a#1": ["y"], "b#0": ["z"]}
    assert bench.pair_counts(pairs, predicted, gold).tolist() == [[2, 3, 2], [0, 0, 1]]
    # The F1 difference of a method with itself is 0, interval and all.
    assert bench.f1_difference(counts, counts, weights) == {"f1": 0.0, "f1_interval": [0.0, 0.0]}


def test_f1_is_the_harmonic_mean_and_undefined_where_a_side_is():
    assert relevance.f1(0.5, 1.0) == pytest.approx(2 / 3)
    assert relevance.f1(0.0, 0.0) == 0.0
    assert relevance.f1(None, 0.5) is None
    assert relevance.precision_recall({"a": ["x", "y"]}, {"a": ["x"]})["f1"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------- the public crowd batch


@pytest.fixture(scope="module")
def crowd_data(shared_infotabs):
    if not CROWD_FILE.is_file():
        pytest.skip(f"the paper's public relevance batch is not at {SHARED_CROWD}")
    return SHARED_CROWD


def test_the_public_batch_reads_as_its_readme_counts_it(crowd_data, shared_infotabs):
    ingested = ingest.ingest_split(shared_infotabs, "train")
    tables = infotabs.load_tables(ingested.tables)
    found, summary = relevance.relevance_table(ingested.examples, tables, "annotations", CROWD_FILE)
    keys = dict(zip(found["uid"].to_pylist(), found["relevant_keys"].to_pylist()))
    assert summary["examples"] - summary["not_annotated"] == len(keys) == 140  # every pair is in train
    sizes = [len(k) for k in keys.values()]
    assert {n: sizes.count(n) for n in set(sizes)} == {0: 18, 1: 81, 2: 39, 3: 1, 4: 1}
    annotations = relevance.read_annotation_file(CROWD_FILE, tables)
    assert sum(a.outside for a in annotations.values()) == 56
    assert annotations[("T1976", "It involved the BMG label.")].keys == ("Labels",)
    assert annotations[("T613", "Republic of Costa Rica is a multi-ethnic, multi-lingual nation.")].keys == (
        "Recognized regional languages",
        "Ethnic groups (2011)",  # "Ethnic groups  (2011)" in the table's JSON: keys compare as ingest cleans them
    )


@pytest.fixture(scope="module")
def figures(crowd_data, shared_infotabs):
    sys.path.insert(0, str(ROOT / "bench"))
    import relevance as bench

    sets = {
        "human": bench.human_pairs(str(shared_infotabs), str(crowd_data)),
        "gold": bench.gold_pairs(str(shared_infotabs)),
    }
    return bench.evaluate(sets)


def test_aligner_on_the_human_pairs(figures):
    """The measured quality on the 140 crowd-marked pairs, as floors (bench/relevance.py prints the
    figures), and on its 66 pairs held out of any tuning; better than the words-only aligner it
    extends, and than both baselines where each is weak."""
    human = figures["human"]
    assert human["all"]["aligner"]["examples"] == 140 and human["heldout"]["aligner"]["examples"] == 66
    assert human["all"]["aligner"]["precision"] >= 0.68 and human["all"]["aligner"]["recall"] >= 0.85
    assert human["all"]["aligner"]["f1"] >= 0.76
    assert human["tuning"]["aligner"]["f1"] >= 0.79
    assert human["heldout"]["aligner"]["precision"] >= 0.60 and human["heldout"]["aligner"]["recall"] >= 0.88
    assert human["heldout"]["aligner"]["f1"] >= 0.72
    # The aligner before soft matches, as it was measured (docs/relevance.md).
    words = "aligner, words only"
    assert human["all"][words]["precision"] >= 0.69 and human["all"][words]["recall"] >= 0.74
    assert human["heldout"][words]["precision"] >= 0.63 and human["heldout"][words]["recall"] >= 0.75
    for part in ("all", "tuning", "heldout"):
        assert human[part]["aligner"]["f1"] > human[part][words]["f1"] + 0.02
        assert human[part]["aligner"]["recall"] > human[part]["best single row"]["recall"] + 0.2
        assert human[part]["aligner"]["precision"] > human[part]["every row"]["precision"] + 0.4
    low, high = human["heldout"]["aligner"]["f1_interval"]
    assert low < human["heldout"]["aligner"]["f1"] < high


def test_aligner_against_the_other_four_is_level_with_a_worker_when_ties_count_relevant(figures):
    """On equal terms (both scored against the majority of the other four workers, 2-2 ties counted
    relevant), the aligner's F1 is within the interval of a worker's on the held-out pairs."""
    heldout = figures["human"]["heldout"]
    low, high = heldout["aligner minus one worker, tie relevant"]["f1_interval"]
    assert low < 0 < high


def test_the_human_ceiling_on_the_public_batch(figures):
    """One worker against the majority of the other four, pooled over 140 pairs x 5 workers: what people
    themselves reach (docs/relevance.md). Under neither tie rule does a worker reach 0.80 on both."""
    human = figures["human"]["all"]
    relevant, not_relevant = (human[f"one worker vs the other four, tie {t}"] for t in ("relevant", "not relevant"))
    assert (relevant["examples"], relevant["comparisons"]) == (140, 700)
    assert (relevant["precision"], relevant["recall"]) == (
        pytest.approx(0.809, abs=5e-4),
        pytest.approx(0.755, abs=5e-4),
    )
    assert (not_relevant["precision"], not_relevant["recall"]) == (
        pytest.approx(0.735, abs=5e-4),
        pytest.approx(0.899, abs=5e-4),
    )
    assert relevant["hits"] == 753 and relevant["predicted_rows"] == not_relevant["predicted_rows"] == 931


@pytest.mark.xfail(
    strict=True,
    reason="the goal of issue 45 is not met: the aligner's F1 on the 66 held-out human pairs is 0.724 "
    "[0.660, 0.784] (precision 0.609, recall 0.893); one worker against the other four reaches F1 0.781 on "
    "all 140 pairs and 0.736 on these 66 (2-2 ties relevant)",
)
def test_aligner_meets_the_goal_on_the_held_out_human_pairs(figures):
    assert figures["human"]["heldout"]["aligner"]["f1"] >= 0.78


def test_aligner_on_the_hand_checked_gold_set(figures):
    """The held-out part of the project's gold set (240 alpha1 pairs), as floors."""
    heldout = figures["gold"]["heldout"]
    assert heldout["aligner"]["examples"] == 240
    assert heldout["aligner"]["precision"] >= 0.73 and heldout["aligner"]["recall"] >= 0.77
    assert heldout["aligner"]["f1"] > heldout["aligner, words only"]["f1"] + 0.02
    assert heldout["aligner"]["precision"] > heldout["every row"]["precision"] + 0.4
    assert heldout["aligner"]["recall"] > heldout["best single row"]["recall"] + 0.2
