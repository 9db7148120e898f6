"""The `tabprobe` command (tabprobe/cli/): `probes`, `show` and `new-probe`, run for real on the
hand-written mini InfoTabS fixture: no mocks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
import yaml
from workflow_copy import ROOT, copy_workflow

from tabprobe import schemas, stages
from tabprobe.cli import judged_by, main
from tabprobe.data.infotabs.ingest import ingest_infotabs
from tabprobe.io import write_parquet
from tabprobe.probes import REGISTRY, get_probe
from tabprobe.probes.generation import read_probe_inputs

MINI = Path(__file__).resolve().parent / "fixtures" / "mini_infotabs"
# The installed entry point ([project.scripts] in pyproject.toml), beside this Python.
TABPROBE = shutil.which("tabprobe", path=str(Path(sys.executable).parent))
SEED = 2022
# alpha1 of the mini fixture: uid -> gold label (two tables, T7 with 4 rows and T10 with 5)
GOLD = {"alpha1:2": "E", "alpha1:3": "N", "alpha1:4": "C", "alpha1:5": "E", "alpha1:6": "N", "alpha1:7": "C"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def headers(out: str) -> list[str]:
    """The uids of the examples `show` printed (one "── uid" header line each)."""
    return [line.split()[1] for line in out.splitlines() if line.startswith("── ")]


def ingest(results: Path) -> None:
    data = results / "data"
    ingest_infotabs(
        str(MINI),
        "alpha1",
        str(data / "alpha1.parquet"),
        str(data / "alpha1.tables.parquet"),
        str(data / "alpha1.summary.json"),
        verify=False,
    )


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    """results/data/alpha1*.parquet of the mini fixture, as the workflow's ingest_infotabs writes them."""
    results = tmp_path_factory.mktemp("ingested") / "results"
    ingest(results)
    return results


@pytest.fixture
def config(tmp_path) -> Path:
    """The repository's config.yaml pointed at the mini fixture (a whole config, as Snakemake needs)."""
    settings = yaml.safe_load((ROOT / "config.yaml").read_text())
    settings.update(infotabs_dir=str(MINI), infotabs_verify=False, seed=SEED)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(settings))
    return path


# ---------------------------------------------------------------- tabprobe probes


def test_probes_lists_every_registered_probe_with_how_it_is_judged_and_its_paper_section(capsys):
    code, out, err = run(capsys, "probes")
    assert code == 0 and err == ""
    lines = {line.split()[0]: line for line in out.splitlines() if line.split() and line.split()[0] in REGISTRY}
    assert list(lines) == list(REGISTRY)  # every probe, one line each, in registry order
    for name, line in lines.items():
        probe = get_probe(name)
        assert judged_by(probe) in line
        assert (probe.paper_reference or "—") in line
        assert probe.description.split(".")[0] in line
    assert "transitions: row_deletion" in lines["row_deletion"]
    assert "section 5.1, Figure 3, Table 5" in lines["row_deletion"]
    assert "expected label (flipped)" in lines["negation_flip"] and "hypothesis" in lines["negation_flip"]


def test_the_installed_command_runs_and_reports_mistakes_without_a_traceback(tmp_path):
    assert TABPROBE, f"no tabprobe entry point beside {sys.executable}; pip install -e ."
    listed = subprocess.run([TABPROBE, "probes"], capture_output=True, text=True, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "row_deletion" in listed.stdout and "section 5.1, Figure 3, Table 5" in listed.stdout

    typo = subprocess.run([TABPROBE, "show", "row_deletio"], capture_output=True, text=True, cwd=tmp_path)
    assert typo.returncode == 2
    assert "no probe 'row_deletio'. Did you mean 'row_deletion'?" in typo.stderr
    assert "Traceback" not in typo.stderr and typo.stdout == ""

    missing = subprocess.run(
        [TABPROBE, "show", "row_deletion", "--model", "m", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "Run the workflow" in missing.stderr


# ---------------------------------------------------------------- tabprobe show (generated in-process)


def test_show_applies_the_probe_to_the_first_examples_and_marks_the_deleted_row(capsys, ingested, config):
    code, out, err = run(capsys, "show", "row_deletion", "--results", ingested, "-n", 2, "--configfile", config)
    assert code == 0, err
    assert headers(out) == ["alpha1:2/row_deletion", "alpha1:3/row_deletion"]  # file order, stopped after 2
    assert "Looked at 2 of 6 examples" in out
    # the rows shown as deleted are the ones the workflow's generate_probe deletes (same seed)
    generated = read_probe_inputs(
        "row_deletion",
        "alpha1",
        str(ingested / "data" / "alpha1.parquet"),
        str(ingested / "data" / "alpha1.tables.parquet"),
        SEED,
    )
    from tabprobe.probes.generation import generate

    rows, _ = generate("row_deletion", generated.examples, generated.tables, SEED)
    deleted = [line for line in out.splitlines() if line.startswith("−")]
    assert len(deleted) == 2
    for line, provenance in zip(deleted, rows["provenance"].to_pylist()[:2]):
        row = json.loads(provenance)["deleted_row"]
        assert row["key"] in line and f"deleted (was row {row['index'] + 1})" in line
    assert out.count("hypothesis (unchanged): The Order of Tidewatchers") == 2
    assert "judged by transitions: row_deletion (E→E/N, N→N, C→C/N)" in out


def test_show_builds_a_missing_parse_with_snakemake_then_shows_a_hypothesis_edit(
    capfd, tmp_path, ingested, config, monkeypatch
):
    results = tmp_path / "results"
    shutil.copytree(ingested / "data", results / "data")
    monkeypatch.chdir(tmp_path)  # outside the repository: the Snakefile is found beside the library
    code = main(["show", "negation_flip", "--results", str(results), "-n", "1", "--configfile", str(config)])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "results/parses/alpha1.spacy not found" in err and "building them with Snakemake" in err
    assert (results / "parses" / "alpha1.spacy").is_file()
    assert not (results / "probes").exists()  # exactly the missing input, not the probe's jobs
    assert headers(out) == ["alpha1:2/negation_flip"]
    assert "hypothesis: The Order of Tidewatchers is {+not+} older than a century." in out
    assert "gold ENTAIL · expected CONTRADICT" in out


def test_show_says_when_snakemake_fails_and_exits_1(capfd, tmp_path, ingested):
    results = tmp_path / "results"
    shutil.copytree(ingested / "data", results / "data")
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 2022\n")  # no probes, models, ...: the workflow's config check refuses it
    code = main(["show", "negation_flip", "--results", str(results), "--configfile", str(bad)])
    out, err = capfd.readouterr()
    assert code == 1
    assert "Snakemake failed" in err and "'probes' is a required property" in err + out
    assert "Traceback" not in err


# ---------------------------------------------------------------- tabprobe show --model


def predictions(rows: list[tuple[str, str]]) -> pa.Table:
    return pa.table(
        {
            "uid": [u for u, _ in rows],
            "orig_uid": [u.split("/")[0] for u, _ in rows],
            "pred": [p for _, p in rows],
            "probs": [[1.0, 0.0, 0.0]] * len(rows),
            "model_fingerprint": ["test"] * len(rows),
            "input_digest": ["d"] * len(rows),
        },
        schema=schemas.PREDICTIONS,
    )


def test_show_model_shows_exactly_the_invalid_transition_with_its_reason(capsys, tmp_path, ingested, config):
    results = tmp_path / "results"
    shutil.copytree(ingested / "data", results / "data")
    stages.generate_probe(
        "row_deletion",
        "alpha1",
        str(results / "data" / "alpha1.parquet"),
        str(results / "data" / "alpha1.tables.parquet"),
        str(results / "probes" / "row_deletion" / "alpha1.parquet"),
        str(results / "probes" / "row_deletion" / "alpha1.coverage.json"),
        seed=SEED,
    )
    # The model is right on every original; after the deletion it moves alpha1:2 from ENTAIL to
    # CONTRADICT (forbidden) and alpha1:5 from ENTAIL to NEUTRAL (allowed); the rest stay.
    after = dict(GOLD, **{"alpha1:2": "C", "alpha1:5": "N"})
    write_parquet(
        predictions(list(GOLD.items())),
        results / "predictions" / "m" / "original" / "alpha1.parquet",
        schemas.PREDICTIONS,
    )
    write_parquet(
        predictions([(f"{uid}/row_deletion", pred) for uid, pred in after.items()]),
        results / "predictions" / "m" / "row_deletion" / "alpha1.parquet",
        schemas.PREDICTIONS,
    )

    code, out, err = run(capsys, "show", "row_deletion", "--model", "m", "--results", results, "--configfile", config)
    assert code == 0, err
    assert headers(out) == ["alpha1:2/row_deletion"]
    assert "Failing: 1 of 6 (16.7%)" in out
    [reason] = [line for line in out.splitlines() if line.startswith("✗ fails: ")]
    assert reason.startswith("✗ fails: ENTAIL before, CONTRADICT after")  # the reason failures.find_failures gives
    assert "prediction ENTAIL on the original → CONTRADICT after the change" in out
    assert len([line for line in out.splitlines() if line.startswith("−")]) == 1  # its deleted row

    (results / "predictions" / "m" / "original" / "alpha1.parquet").unlink()
    code, out, err = run(capsys, "show", "row_deletion", "--model", "m", "--results", results, "--configfile", config)
    assert code == 1 and out == ""
    assert "snakemake --cores all results/predictions/m/original/alpha1.parquet" in err

    code, _, err = run(
        capsys, "show", "row_deletion", "--model", "minilm-strct", "--results", results, "--configfile", config
    )  # a model of config with no predictions yet
    assert code == 2 and "no predictions of a model 'minilm-strct'" in err and "Did you mean 'minilm-struct'?" in err


# ---------------------------------------------------------------- tabprobe new-probe


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of the workflow with the tests a new probe is checked by."""
    root = copy_workflow(tmp_path / "checkout")
    (root / "tests" / "probes").mkdir(parents=True)
    for name in ("test_probes.py", "conftest.py", "probes/conftest.py"):
        shutil.copy(ROOT / "tests" / name, root / "tests" / name)
    shutil.copytree(ROOT / "tests" / "fixtures", root / "tests" / "fixtures")
    return root


def test_new_probe_scaffolds_probes_that_pass_their_tests_and_the_contract_test(capsys, checkout):
    """One probe of each kind, for each built-in dataset's table type: InfoTabS's infoboxes (table,
    hypothesis) and TabFact's relational tables (record, statement)."""
    probes = checkout / "workflow" / "tabprobe" / "probes"
    registries = {d: probes / d / "registry.py" for d in ("infotabs", "tabfact")}
    before = {d: path.read_text() for d, path in registries.items()}
    code, out, err = run(capsys, "new-probe", "my_probe", "--root", checkout)
    assert code == 0, err
    assert "tabprobe show my_probe --split alpha1 -n 5" in out and "`my_probe: {}` under probes:" in out
    assert "snakemake -n" in out and "snakemake --cores all" in out
    made = {
        "my_hyp_probe": ("infotabs", "hypothesis"),
        "my_record_probe": ("tabfact", "record"),
        "my_statement_probe": ("tabfact", "statement"),
    }
    for name, (dataset, kind) in made.items():
        code, out, err = run(capsys, "new-probe", name, "--root", checkout, "--dataset", dataset, "--kind", kind)
        assert code == 0, err
    assert "tabprobe show my_statement_probe --split simple_test -n 5" in out  # its dataset's first split
    made["my_probe"] = ("infotabs", "table")

    # The registry lines after the last entry of each dataset's PROBES, in the existing style;
    # nothing else changed.
    for dataset, registry in registries.items():
        names = [n for n, (d, _) in made.items() if d == dataset]
        lines = "".join(
            f'    "{n}": "tabprobe.probes.{dataset}.{made[n][1]}.{n}:PROBE",\n'
            for n in sorted(names, key=["my_probe", "my_hyp_probe", "my_record_probe", "my_statement_probe"].index)
        )
        closing = before[dataset].index("\n}\n") + 1
        assert registry.read_text() == before[dataset][:closing] + lines + before[dataset][closing:], dataset
    for name, (dataset, kind) in made.items():
        assert (probes / dataset / kind / f"{name}.py").is_file()
        assert (checkout / "tests" / "probes" / f"test_probe_{name}.py").is_file()
    assert 'needs=frozenset({"parse"})' in (probes / "infotabs" / "hypothesis" / "my_hyp_probe.py").read_text()
    assert 'labels=frozenset({"E", "C"})' in (probes / "tabfact" / "record" / "my_record_probe.py").read_text()

    # The copy's library, not this checkout's, is imported (this one has no my_probe).
    env = {**os.environ, "PYTHONPATH": str(checkout / "workflow")}
    imported = subprocess.run(
        [sys.executable, "-c", "import tabprobe; print(tabprobe.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        cwd=checkout,
        check=True,
    ).stdout
    assert Path(imported.strip()).is_relative_to(checkout)
    tests = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",  # a few quick tests: one process, not the suite's two workers (pyproject.toml)
            "-v",
            *(f"tests/probes/test_probe_{name}.py" for name in made),
            "tests/test_probes.py",
            "-k",
            " or ".join(made),
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=checkout,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    for name in made:
        assert f"test_every_registered_probe_honours_the_contract[{name}] PASSED" in tests.stdout
        assert f"tests/probes/test_probe_{name}.py::" in tests.stdout
    assert " failed" not in tests.stdout.splitlines()[-1] and " passed" in tests.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["new-probe", "my-probe"], "'my-probe' is not a probe name"),
        (["new-probe", "_private"], "'_private' is not a probe name"),
        (["new-probe", "row_deletion"], "a probe 'row_deletion' is already registered"),
        (["new-probe", "tf_original", "--dataset", "tabfact"], "a probe 'tf_original' is already registered"),
        (["new-probe", "entity_slots", "--kind", "hypothesis"], "entity_slots.py already exists"),  # a helper
        (["new-probe", "fine", "--dataset", "tabfct"], "no dataset 'tabfct'. Did you mean 'tabfact'?"),
        (["new-probe", "fine", "--dataset", "tabfact", "--kind", "table"], "TabFact's tables are relational"),
        (["new-probe", "taken"], "test_probe_taken.py already exists"),
        (["new-probe", "fine", "--kind", "numeric"], "invalid choice: 'numeric'"),
    ],
)
def test_new_probe_refuses_and_writes_nothing(capsys, checkout, argv, message):
    (checkout / "tests" / "probes" / "test_probe_taken.py").write_text("# someone's test\n")
    before = snapshot(checkout)
    code, _, err = run(capsys, *argv, "--root", checkout)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert snapshot(checkout) == before


def test_new_probe_needs_a_repository(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "new-probe", "my_probe")
    assert code == 2 and "run inside the checkout" in err and "--root" in err
    code, _, err = run(capsys, "new-probe", "my_probe", "--root", tmp_path)
    assert code == 2 and "is not the repository root" in err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- tabprobe curate


def test_curate_writes_the_page_and_tsv_and_fills_in_earlier_decisions(capsys, tmp_path, ingested, config, monkeypatch):
    results = tmp_path / "results"
    shutil.copytree(ingested / "data", results / "data")
    stages.parse_hypotheses(
        str(results / "data" / "alpha1.parquet"),
        str(results / "parses" / "alpha1.spacy"),
        str(results / "parses" / "alpha1.json"),
    )
    monkeypatch.chdir(tmp_path)
    argv = ["curate", "negation_flip", "--results", results, "--configfile", config, "--out", tmp_path / "curation"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    # the two CONTRADICT hypotheses negated into ENTAIL candidates; the ENTAIL ones flip by rule
    assert "negation_flip on alpha1" in out and "2 examples to review of 4 generated (C2E 2); 0 decided earlier" in out
    tsv = tmp_path / "curation" / "negation_flip.alpha1.curation.tsv"
    assert (tmp_path / "curation" / "negation_flip.alpha1.curation.html").is_file()
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t")[:6] == ["uid", "table_id", "needs", "gold", "proposed", "decision"]
    assert [line.split("\t")[0] for line in lines[1:]] == ["alpha1:4/negation_flip", "alpha1:7/negation_flip"]
    assert "The Order of Tidewatchers is not based in Vellmora." in lines[1]
    # a person decides one in a spreadsheet; curate again: the decision is filled in, not lost
    cells = lines[1].split("\t")
    cells[5] = "reject"
    tsv.write_text("\n".join([lines[0], "\t".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "1 decided earlier" in out
    assert tsv.read_text(encoding="utf-8").splitlines()[1].split("\t")[5] == "reject"
    code, out, _ = run(capsys, *argv, "--only", "heuristic")
    assert code == 0 and "1 example to review" in out  # only the decided one: no heuristic flip here


@pytest.mark.parametrize(
    "argv, message",
    [
        (["curate", "row_deletion"], "judged by transitions, not by expected labels"),
        (["curate", "negation_flp"], "Did you mean 'negation_flip'?"),
        (["curate", "negation_flip", "--split", "alpha9"], "no split 'alpha9'"),
    ],
)
def test_curate_refuses_what_it_cannot_curate(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_compare_says_what_is_missing_without_a_traceback(capsys, tmp_path):
    code, _, err = run(capsys, "compare", "minilm-struct", "minilm-hypo", "--results", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'results.parquet'} not found: run the workflow first" in err
    run_folder = tmp_path / "run"
    (run_folder / "results").mkdir(parents=True)
    code, _, err = run(capsys, "compare", str(run_folder), str(tmp_path))
    assert code == 2 and "no results.parquet there or in its results/ folder" in err and "Traceback" not in err
