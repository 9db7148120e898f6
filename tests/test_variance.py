"""Controlled variance (diversify-your-datasets section 3): the learning curve's jobs as the real
workflow plans them (one training and one scoring job per repeat and size, under `full: true`
the paper's 5 repeats, sizes and 1000-9999 range), nested training sizes, the summary and its
figure. The jobs run for real in test_inoculation_workflow.py."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from test_config import MINI_INFOTABS
from workflow_copy import snakemake_command

from tabprobe.config import FULL_VARIANCE, VARIANCE_DEFAULTS, names
from tabprobe.data.infotabs import ingest
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.inoculation import variance
from tabprobe.report import figures

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def dry_run(tmp_path, *extra_config: dict) -> str:
    """`snakemake -n` of the real workflow with config.yaml, then each of `extra_config` as one
    more --configfile (merged over it, as a user's own file is), on the mini fixture."""
    files = [str(ROOT / "config.yaml")]
    for i, extra in enumerate(extra_config):
        path = tmp_path / f"extra{i}.yaml"
        path.write_text(yaml.safe_dump(extra))
        files.append(str(path))
    command = snakemake_command(
        ROOT, None, "-n", "--configfile", *files, "--config", f"infotabs_dir={MINI_INFOTABS}", workdir=tmp_path
    )
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def planned(plan: str, rule: str) -> list[tuple[dict, str]]:
    """(wildcards, resources) of every job of `rule` in a dry run's plan."""
    jobs = re.findall(
        rf"rule {rule}:.*?wildcards: ([^\n]*)\n(?:\s+priority: [^\n]*\n)?\s+resources: (.*?)\n", plan, flags=re.S
    )
    return [(dict(part.split("=", 1) for part in wildcards.split(", ")), resources) for wildcards, resources in jobs]


def curve_jobs(plan: str, rule: str) -> set[tuple[int, int]]:
    jobs = planned(plan, rule)
    assert all("gpu=1" in resources for _, resources in jobs), rule
    assert {w["model"] for w, _ in jobs} == {"minilm-struct"}
    found = [(int(w["size"]), int(w["resample"])) for w, _ in jobs]
    assert len(found) == len(set(found)), f"{rule}: a (size, repeat) planned twice"
    return set(found)


def test_full_plans_a_training_and_a_scoring_job_per_repeat_and_size(tmp_path):
    plan = dry_run(tmp_path, {"full": True, "infotabs_verify": False, "max_examples": None})
    sizes, repeats = FULL_VARIANCE["train_sizes"], range(1, FULL_VARIANCE["resamples"] + 1)
    assert (len(sizes), len(repeats)) == (5, 5)
    assert curve_jobs(plan, "train_variance") == {(s, r) for s in sizes for r in repeats}
    # Size 0 is the model before fine-tuning, scored per repeat on the same examples.
    assert curve_jobs(plan, "score_variance") == {(s, r) for s in [0, *sizes] for r in repeats}
    assert len(planned(plan, "collect_variance")) == 1


def test_the_default_run_keeps_its_three_trainings_and_a_two_point_curve(tmp_path):
    plan = dry_run(tmp_path)
    assert curve_jobs(plan, "train_variance") == {(200, r) for r in (1, 2, 3)}
    assert curve_jobs(plan, "score_variance") == {(s, r) for s in (0, 200) for r in (1, 2, 3)}


def test_a_users_own_keys_hold_under_full_in_the_workflow(tmp_path):
    """A user's file that sets `resamples` and `train_sizes` keeps them under `full: true` (3 is
    also the CPU budget's value: written is written, whatever its value)."""
    own = {"full": True, "controlled_variance": {"resamples": 3, "train_sizes": [1000, 250]}}
    assert VARIANCE_DEFAULTS["resamples"] == 3 != FULL_VARIANCE["resamples"]
    plan = dry_run(tmp_path, own)
    assert curve_jobs(plan, "train_variance") == {(s, r) for s in (250, 1000) for r in (1, 2, 3)}
    assert curve_jobs(plan, "score_variance") == {(s, r) for s in (0, 250, 1000) for r in (1, 2, 3)}


@pytest.fixture(scope="module")
def dev(shared_infotabs):
    ingested = ingest.ingest_split(shared_infotabs, "dev")
    return ingested.examples, infotabs.load_tables(ingested.tables)


def test_training_sizes_of_a_repeat_are_nested_and_repeats_differ(dev):
    examples, tables = dev
    seed = variance.resample_seed(2022, 1)
    # 400 examples need several chunks of gold examples: the nesting holds across chunks.
    draws = {n: variance.range_examples(examples, tables, [30, 49], n, seed, "dev") for n in (20, 150, 400)}
    assert [draws[n].num_rows for n in (20, 150, 400)] == [20, 150, 400]
    for small, large in ((20, 150), (150, 400)):
        assert draws[small].equals(draws[large].slice(0, small)), (small, large)
    other = variance.range_examples(examples, tables, [30, 49], 150, variance.resample_seed(2022, 2), "dev")
    assert set(other["uid"].to_pylist()) != set(draws[150]["uid"].to_pylist())
    provenance = [json.loads(p) for p in draws[400]["provenance"].to_pylist()]
    assert all(30 <= p["value"] <= 49 and 30 <= p["number"] <= 49 for p in provenance)
    # Fewer than asked where the split holds fewer: dev has about 450 in all.
    assert variance.range_examples(examples, tables, [30, 49], 5000, seed, "dev").num_rows < 5000


def score(model, probe, label, mean):
    return {"model": model, "probe": probe, "split": "alpha1", "statistic": "accuracy", "label": label, "mean": mean}


def test_the_summary_holds_the_curve_per_range_with_the_spread_over_repeats():
    rows = [
        score("m", "num_comparative[30-49]", "r1", 40.0),
        score("m", "num_comparative[30-49]", "r2", 44.0),
        score("m.cv-100", "num_comparative[30-49]", "r1", 60.0),
        score("m.cv-100", "num_comparative[30-49]", "r2", 70.0),
        score("m.cv-200", "num_comparative[30-49]", "r1", 80.0),
        score("m.cv-200", "num_comparative[30-49]", "r2", None),  # no value: left out of the spread
        score("m.cv-200", "num_comparative[200-299]", "r1", 50.0),
    ]
    summary = variance.summarise("m", rows, [30, 49], [[30, 49], [200, 299]], [200, 100], 2)
    assert summary["sizes"] == [0, 100, 200] and summary["train_range"] == "30-49" and summary["repeats"] == 2
    trained, other = summary["ranges"]
    assert [p["size"] for p in trained["curve"]] == [0, 100, 200]
    assert [p["mean"] for p in trained["curve"]] == [42.0, 65.0, 80.0]
    assert trained["curve"][1]["min"] == 60.0 and trained["curve"][1]["max"] == 70.0
    assert trained["curve"][2]["repeats"] == 1 and trained["curve"][2]["std"] is None
    assert trained["before"]["mean"] == 42.0 and trained["after"]["mean"] == 80.0
    assert other["range"] == "200-299" and other["curve"][0]["repeats"] == 0 and other["after"]["mean"] == 50.0
    assert names.is_trained_name("m.cv-100") and not names.is_trained_name("m")
    assert names.trained_name("m", 0) == "m" and names.trained_name("m", 100) == "m.cv-100"


def curve_svg(salt="curve"):
    return figures.learning_curve(
        [
            figures.CurveSeries(
                "30-49 (trained on)",
                [figures.CurvePoint(0, 44.0, 41.0, 47.0), figures.CurvePoint(250, 55.5, 50.0, 60.0)],
                emphasised=True,
            ),
            figures.CurveSeries(
                "1000-9999", [figures.CurvePoint(0, 40.0, 38.0, 42.0), figures.CurvePoint(250, None, None, None)]
            ),
        ],
        "m: accuracy <by> range",
        "accuracy (%)",
        salt=salt,
    )


def test_the_learning_curve_is_a_standalone_deterministic_svg_with_a_line_per_range():
    svg = curve_svg()
    assert svg == curve_svg()  # same numbers, same bytes
    root = ET.fromstring(svg)  # well-formed, the title escaped
    assert root.get("aria-label") == "m: accuracy <by> range"
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    for label in ("30-49 (trained on)", "1000-9999", "0 (before)", "250", "training examples", "test range"):
        assert label in text, label
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert ids and all(i.startswith("curve-") for i in ids)  # prefixed: two figures on a page never clash
    assert set(ids).isdisjoint(re.findall(r'\bid="([^"]+)"', curve_svg("other")))
    assert "<style" not in svg
