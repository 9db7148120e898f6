"""The run's one results table (results.parquet / .csv) and its record (run.json), from score
files written as the workflow writes them."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.errors import CorruptFileError
from tabprobe.io import write_parquet
from tabprobe.scoring import results

ROOT = Path(__file__).resolve().parents[1]


def score_file(folder: Path, model: str, probe: str, split: str, cells: list[tuple[str, str, float | None]]) -> Path:
    rows = [
        {
            "model": model,
            "probe": probe,
            "split": split,
            "statistic": statistic,
            "label": label,
            "mean": mean,
            "std": None if mean is None else 1.5,
            "ci_low": None if mean is None else mean - 3,
            "ci_high": None if mean is None else mean + 3,
            "n": 0 if mean is None else 200,
        }
        for statistic, label, mean in cells
    ]
    path = folder / model / probe / f"{split}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_parquet(pa.Table.from_pylist(rows, schema=schemas.SCORES), path, schemas.SCORES)
    return path


@pytest.fixture
def score_files(tmp_path) -> list[Path]:
    folder = tmp_path / "scores"
    return [
        score_file(
            folder,
            "minilm-struct",
            "original",
            "alpha1",
            [("accuracy", "all", 54.4), ("accuracy", "N", None), ("accuracy_gain_over_baseline", "all", -5.4)],
        ),
        score_file(folder, "minilm-hypo", "original", "alpha1", [("accuracy", "all", 59.8)]),
        score_file(
            folder,
            "minilm-struct",
            "row_deletion",
            "alpha1",
            [("invalid_transition_pct", "E", 1.2), ("invalid_transition_pct", "all", 1.0)],
        ),
        score_file(folder, "minilm-struct", "table4:label_flipped", "alpha1", [("accuracy", "all", 40.0)]),
        score_file(folder, "minilm-hypo", "table4:label_flipped", "alpha1", [("accuracy", "all", 30.0)]),
        score_file(folder, "minilm-struct.ino-hypothesis-100", "original", "alpha1", [("accuracy", "all", 50.0)]),
    ]


PREMISES = {
    "minilm-struct": "paragraph",
    "minilm-hypo": "hypothesis_only",
    "minilm-struct.ino-hypothesis-100": "paragraph",
}


def test_every_score_is_one_row_with_the_papers_value_for_its_kind_of_model(score_files):
    table = results.collect(score_files, PREMISES)
    assert table.columns == [
        "model",
        "probe",
        "split",
        "dataset",
        "statistic",
        "label",
        "mean",
        "std",
        "ci_low",
        "ci_high",
        "n",
        "paper",
    ]
    assert set(table["dataset"]) == {"infotabs"}
    assert table.height == 9
    keys = table.select(results.KEYS).rows()
    assert keys == sorted(keys)

    scores = results.Index(table)

    def paper(**where):
        return scores.get(**({"split": "alpha1", "label": "all"} | where))["paper"]

    # RoBERTa-large beside a model that reads its table, the paper's hypothesis-only model beside the baseline.
    assert paper(model="minilm-struct", probe="original", statistic="accuracy", label="all") == 74.88
    assert paper(model="minilm-hypo", probe="original", statistic="accuracy", label="all") == 60.48
    assert paper(model="minilm-struct", probe="table4:label_flipped", statistic="accuracy") == 51.48
    assert paper(model="minilm-hypo", probe="table4:label_flipped", statistic="accuracy") == 31.02
    assert paper(model="minilm-struct", probe="row_deletion", statistic="invalid_transition_pct", label="E") == 5.76
    # Printed per label only: no made-up overall value; none for derived models or statistics of ours.
    assert paper(model="minilm-struct", probe="row_deletion", statistic="invalid_transition_pct", label="all") is None
    assert paper(model="minilm-struct.ino-hypothesis-100", probe="original", statistic="accuracy") is None
    assert paper(model="minilm-struct", probe="original", statistic="accuracy_gain_over_baseline") is None


def test_the_csv_opens_as_one_row_per_score_and_both_files_repeat_byte_for_byte(score_files, tmp_path):
    table = results.collect(score_files, PREMISES)
    results.write(table, tmp_path / "results.parquet", tmp_path / "results.csv")
    with open(tmp_path / "results.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == table.height
    para = next(
        r
        for r in rows
        if r["model"] == "minilm-struct"
        and r["probe"] == "original"
        and r["label"] == "all"
        and r["statistic"] == "accuracy"
    )
    assert [float(para[k]) for k in ("mean", "ci_low", "ci_high", "paper")] == pytest.approx([54.4, 51.4, 57.4, 74.88])
    assert para["n"] == "200"
    missing = next(r for r in rows if r["label"] == "N")
    assert (missing["mean"], missing["n"]) == ("", "0")  # an empty cell, not "nan" or "null"
    assert results.read(tmp_path / "results.parquet").equals(table)
    first = (tmp_path / "results.parquet").read_bytes(), (tmp_path / "results.csv").read_bytes()
    results.write(
        results.collect(list(reversed(score_files)), PREMISES), tmp_path / "results.parquet", tmp_path / "results.csv"
    )
    assert ((tmp_path / "results.parquet").read_bytes(), (tmp_path / "results.csv").read_bytes()) == first


def test_two_files_claiming_the_same_score_and_a_damaged_file_are_errors(score_files, tmp_path):
    twin = score_file(tmp_path / "again", "minilm-hypo", "original", "alpha1", [("accuracy", "all", 59.8)])
    with pytest.raises(CorruptFileError, match="share their keys.*model=minilm-hypo, probe=original"):
        results.collect([*score_files, twin], PREMISES)
    score_files[0].write_bytes(score_files[0].read_bytes()[:-30])
    with pytest.raises(CorruptFileError, match=str(score_files[0])):
        results.collect(score_files, PREMISES)


def test_the_run_record_holds_config_versions_commit_models_relevance_and_caps(tmp_path):
    config = {"seed": 2022, "max_examples": 1000, "probes": {"original": {"splits": ["alpha1"]}}}
    models = {
        "minilm-struct": {"checkpoint": "resources/models/minilm-struct", "fingerprint": "abc", "premise": "paragraph"}
    }
    coverage = [
        {"probe": "original", "split": "alpha1", "limit": 1000},
        {"probe": "row_deletion", "split": "alpha1", "limit": None},
    ]
    relevance = {"alpha1": {"source": "aligner", "examples": 1000, "with_relevant_rows": 900, "rows": []}}
    record = results.run_record(config, models, coverage, relevance, ROOT)
    assert record["config"] == config
    assert record["versions"]["polars"] and record["versions"]["python"].count(".") == 2
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert record["commit"]["sha"] == sha and isinstance(record["commit"]["modified"], bool)
    assert record["models"]["minilm-struct"]["fingerprint"] == "abc"
    assert record["relevance"]["alpha1"] == {
        "source": "aligner",
        "examples": 1000,
        "with_relevant_rows": 900,
        "not_annotated": None,
    }
    assert record["caps"] == {"original": {"alpha1": 1000}, "row_deletion": {"alpha1": None}}
    assert results.repository_commit(tmp_path) is None  # outside a checkout: said, not guessed
    results.write_run_record(record, tmp_path / "run.json")
    assert results.config_of(tmp_path / "run.json") == config


def a_run(folder: Path, hypotheses: list[str], predictions: list[str]) -> Path:
    """A finished run's results folder with one model scored on `original` (alpha1)."""
    from tabprobe import stages
    from tabprobe.scoring import probe_scores as scoring

    uids = [f"alpha1:{i}" for i in range(len(hypotheses))]
    labels = ["E", "C"] * (len(uids) // 2)
    table = {"table_id": "T1", "title": "t", "rows": [], "category": None}
    examples = pa.table(
        {
            "uid": uids,
            "orig_uid": uids,
            "table_id": ["T1"] * len(uids),
            "hypothesis": hypotheses,
            "label": labels,
            "probe": ["original"] * len(uids),
            "table": [table] * len(uids),
            "expected": labels,
            "provenance": ["{}"] * len(uids),
        },
        schema=infobox.PROBE_EXAMPLES,
    )
    preds = pa.table(
        {
            "uid": uids,
            "orig_uid": uids,
            "pred": predictions,
            "probs": [[1.0, 0.0, 0.0]] * len(uids),
            "model_fingerprint": ["f"] * len(uids),
            "input_digest": uids,
        },
        schema=schemas.PREDICTIONS,
    )
    write_parquet(examples, folder / "probes" / "original" / "alpha1.parquet", infobox.PROBE_EXAMPLES)
    write_parquet(preds, folder / "predictions" / "m" / "original" / "alpha1.parquet", schemas.PREDICTIONS)
    settings = {"samplings": 20, "fraction": 0.8, "bootstrap": 100, "confidence": 0.95}
    scores = scoring.score_examples(
        "original", examples, preds, None, scoring.ScoringSettings(seed=7, **settings), "m", "alpha1"
    )
    write_parquet(scores, folder / "scores" / "m" / "original" / "alpha1.parquet", schemas.SCORES)
    stats = folder / "predictions" / "m" / "original" / "alpha1.json"
    stats.write_text(json.dumps({"premise": "paragraph", "truncated": 0, "examples": len(uids)}))
    stages.collect_results(
        [str(folder / "scores" / "m" / "original" / "alpha1.parquet")],
        {"m": [str(stats)]},
        [],
        {},
        folder / "results.parquet",
        folder / "results.csv",
        folder / "run.json",
        config={"seed": 7, "scoring": settings},
    )
    return folder


def test_compare_pairs_only_the_examples_both_runs_share(tmp_path):
    from tabprobe.report import compare

    hypotheses = [f"hypothesis {i}" for i in range(40)]
    left = a_run(tmp_path / "left", hypotheses, ["E", "C"] * 20)  # all right
    changed = hypotheses[:-4] + [h + " (edited)" for h in hypotheses[-4:]]
    right = a_run(tmp_path / "right", changed, ["E", "C"] * 10 + ["N"] * 20)  # right on the first 20
    rows = compare.compare(compare.load_side(left, "m"), compare.load_side(right, "m"), compare.scoring_settings(left))
    accuracy = next(r for r in rows if r.measure.statistic == "accuracy")
    assert accuracy.note == "paired on 36 shared examples (4 of the left side's and 4 of the right's not shared)"
    assert accuracy.difference["n"] == 36 and accuracy.difference["mean"] == pytest.approx(100 * 16 / 36, abs=3)
    assert accuracy.left["mean"] == pytest.approx(100.0) and accuracy.right["mean"] == pytest.approx(50.0, abs=3)
    with pytest.raises(compare.CompareError, match="model 'other' has no scores .* its models: m"):
        compare.load_side(left, "other")
