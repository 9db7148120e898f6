"""A rule's code inputs are the import closure of its script (tabprobe.code_inputs): what the
job runs, all of it, and nothing else."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from tabprobe import code_inputs
from tabprobe.probes import REGISTRY, source_files
from tabprobe.stages import RULE_MODULES

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "workflow" / "scripts"
# The verdicts (with the scorecard) and the inference code, each split over several modules.
VERDICTS = {"report/verdicts.py", "report/verdict_terms.py", "report/verdict_questions.py", "report/scorecard.py"}
MODELS = {
    f"models/{name}.py" for name in ("classifiers", "checkpoints", "precision", "inference", "causal", "lm_prompts")
}


def of(rule: str) -> list[str]:
    return code_inputs.of_script(SCRIPTS / f"{rule}.py")


@pytest.mark.parametrize(
    "snippet, where, expected",
    [
        # `.` from scoring/ is scoring/: no such submodules, so the names come from its face
        ("from . import seeding, schemas", "scoring/x.py", ["scoring/__init__.py"]),
        ("from .. import seeding, schemas", "scoring/x.py", ["schemas.py", "seeding.py"]),
        ("from ..io import read_parquet", "scoring/x.py", ["io.py"]),
        ("from .probes import invariants, get_probe", "x.py", ["probes/__init__.py", "probes/invariants.py"]),
        ("from .text_edits import change", "probes/shared/identity.py", ["probes/shared/text_edits.py"]),
        ("from ...data.infobox.table import Row", "probes/infotabs/number_edits.py", ["data/infobox/table.py"]),
        (
            "import tabprobe.scoring.probe_scores\nfrom tabprobe import logs\nfrom tabprobe.models.predict import infer_nli",
            None,
            ["logs.py", "models/predict.py", "scoring/probe_scores.py"],
        ),
        (
            "from tabprobe.data.infotabs import reading as infotabs\nfrom tabprobe.probes.generation import generate",
            None,
            ["data/infotabs/reading.py", "probes/generation.py"],
        ),  # a module of a nested package, and one of a package: never the packages' faces
        ("from tabprobe import LABELS", None, ["__init__.py"]),  # a name from the package's face
        ("import numpy as np\nfrom pathlib import Path\nfrom . import x", None, []),  # not the library; no package
        (
            "def f():\n    from ..data.infotabs import relevance\n",
            "scoring/x.py",
            ["data/infotabs/relevance.py"],
        ),  # imports inside functions count
        (
            "from .settings import probe_limit",
            "config/__init__.py",
            ["config/settings.py"],
        ),  # a package face's own imports
    ],
)
def test_imported_files_resolve_relative_absolute_and_submodule_imports(snippet, where, expected):
    assert code_inputs.imported_files(snippet, where) == expected


def test_a_name_taken_from_a_package_face_brings_the_modules_the_face_imports():
    """`from tabprobe.config import probe_limit` runs config/__init__.py, which imports the
    package's modules: an edit to any of them must re-run the job (never the commands `python -m`
    runs: __main__, and reference, which writes docs/configuration.md; nor the rules' own modules,
    derived, inoculation_inputs, report_inputs and job_settings, which no job imports)."""
    closure = code_inputs.closure(code_inputs.imported_files("from tabprobe.config import probe_limit", None))
    package = code_inputs.PACKAGE_DIR / "config"
    not_jobs = {
        "__main__.py",
        "reference.py",
        "derived.py",
        "inoculation_inputs.py",
        "report_inputs.py",
        "job_settings.py",
    }
    modules = {f"config/{p.name}" for p in package.glob("*.py") if p.name not in not_jobs}
    assert modules <= set(closure) and not {f"config/{name}" for name in not_jobs} & set(closure)
    assert "config/settings.py" in modules and "config/checks.py" in modules


def test_scoring_runs_seeding_and_the_transition_rules_but_not_the_report():
    score = of("score_probe")
    for module in (
        "scoring/probe_scores.py",
        "seeding.py",
        "schemas.py",
        "probes/transitions.py",
        "probes/curation.py",
    ):
        assert module in score
    assert not (VERDICTS | MODELS | {"models/training.py"}) & set(score)
    assert not [f for f in score if f.startswith("report/")]


def test_the_report_is_the_only_rule_that_runs_the_verdicts_and_the_report_modules():
    for script in SCRIPTS.glob("*.py"):
        closure = set(of(script.stem))
        # every rule runs the stage module that holds its job function, one file from its script
        assert f"{RULE_MODULES[script.stem].replace('.', '/')}.py" in closure, script.name
        assert "probes/__init__.py" not in closure  # the registry: a new line must re-run only the new probe
        if script.stem != "assemble_report":
            assert not (VERDICTS | {"report/figures.py"}) & closure, script.name
            assert not [f for f in closure if f.startswith("report/")], script.name


def dataset_job_code(dataset: str, job: str) -> list[str]:
    """What rule <job>_<dataset> runs (rules/data_inputs.smk: the generic script and the modules of
    the dataset's job and folder functions, `Dataset.ingest`)."""
    from tabprobe.data.datasets import get_dataset

    declared = get_dataset(dataset).ingest
    targets = [{"check": declared.check, "ingest": declared.ingest}[job], declared.root]
    modules = [code_inputs.of_module(t.partition(":")[0]) for t in targets if t]
    return sorted({*of(f"{job}_dataset"), *(f for files in modules for f in files)})


def test_data_rules_do_not_run_models_or_config_code():
    """Editing the models or the config checks must never re-ingest the data (and so everything);
    a dataset's data rules run its own job modules, not another dataset's."""
    for dataset, other in (("infotabs", "tabfact"), ("tabfact", "infotabs")):
        for job in ("check", "ingest"):
            code = dataset_job_code(dataset, job)
            assert f"data/{dataset}/ingest.py" in code and "data/ingest.py" in code, (dataset, job)
            assert not (MODELS | {"models/training.py", "probes/generation.py"}) & set(code), (dataset, job)
            assert not [f for f in code if f.startswith(("config/", f"data/{other}/", "probes/"))], (dataset, job)


def test_generating_a_probe_runs_no_probe_module_but_the_probes_own():
    shared = set(of("generate_probe"))
    probe_modules = {f"probes/{name}.py" for name in REGISTRY}
    assert not probe_modules & shared
    # The aligner is not in it: its edits reach the probes that read relevance through its files.
    aligner = "data/infobox/aligner.py"
    assert aligner not in shared and aligner in of("find_relevant_rows")
    negation = source_files("negation_flip")
    assert [f for f in negation if f.endswith(".py")] == sorted(
        {
            "probes/infotabs/hypothesis/negation_flip.py",
            "probes/infotabs/hypothesis/edits/negation.py",
            "probes/infotabs/hypothesis/edits/reading.py",
            "probes/shared/text_edits.py",
            "probes/base.py",
            "probes/invariants.py",
            "probes/transitions.py",  # the judging contract every probe declares against
            "__init__.py",  # the label set
            "data/infobox/table.py",
            "schemas.py",  # the table type's probe-file contract
            "wordlists.py",
        }
    )
    # ... and the word lists those modules read, nothing else (not the other hypothesis edits'
    # (the dates' months), not titles.py's, not the table edits', not the aligner's)
    assert {"probes/words/hedges.txt", "probes/words/other_negations.txt"} <= set(negation)
    assert not {
        "words/months.txt",
        "probes/words/honorifics.txt",
        "probes/words/identity_keys.txt",
        "words/key_cues.txt",
    } & set(negation)
    # The numeric probes share the text surgery, not the parse-based edits.
    for name in ("num_words", "num_decimal", "num_comparative", "modifier_preserve"):
        assert not [f for f in source_files(name) if f.startswith("probes/infotabs/hypothesis/edits/")], name
        assert "probes/shared/text_edits.py" in source_files(name), name
    # The stop-word lookup is a module of its own: the title swaps ask it and take no text surgery,
    # so an edit to the surgery leaves them be (test_workflow_e2e edits it in a finished run).
    title_swap = source_files("cf_title_swap")
    assert "probes/shared/stop_words.py" in title_swap and "probes/shared/text_edits.py" not in title_swap


def test_every_rule_with_a_script_lists_its_scripts_closure_as_code_inputs():
    without, made_in_a_loop = [], []
    for rules_file in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule |checkpoint |for |\s+rule:)", rules_file.read_text()):
            named = re.match(r"\s+rule:\s+name:\s+f\"(\w+)\{", block)  # a rule made per dataset
            if named:
                made_in_a_loop.append(named.group(1))
            match = named or re.match(r"(?:rule|checkpoint) (\w+):", block)
            if match and "script:" in block:
                script = re.search(r'workflow/scripts/(\w+)\.py"', block).group(1)
                if f'code_of("{script}"' not in block:
                    without.append(match.group(1))
    # The downloads are verified against the releases' checksums: an edited downloader re-fetches nothing.
    assert sorted(without) == ["download_counterfactuals", "download_infotabs"]
    assert made_in_a_loop == ["check_", "ingest_"]  # the dataset rules were seen


@pytest.mark.parametrize(
    "snippet, expected",
    [
        ('HEDGES = word_set("probes/words/hedges.txt")', ["probes/words/hedges.txt"]),
        (
            'from tabprobe import wordlists\nA = wordlists.word_map("words/a.txt")\n'
            'def f():\n    return word_groups("words/b.txt"), word_list("words/a.txt")',
            ["words/a.txt", "words/b.txt"],
        ),
        ("words = text.split()\nread_text('x.txt')", []),  # not a loader
    ],
)
def test_the_word_lists_a_module_reads_are_the_literal_paths_it_gives_the_loaders(snippet, expected):
    assert code_inputs.data_files(snippet) == expected


def test_a_word_list_named_by_anything_but_a_literal_is_refused():
    """Its file could not be an input of the jobs that read it: an edit would re-run nothing."""
    for snippet in ('word_set(folder + "/hedges.txt")', "word_map(PATH)", 'word_set(path="a.txt")'):
        with pytest.raises(ValueError, match="string literal"):
            code_inputs.data_files(snippet, "probes/x.py")


@cache
def _reads() -> dict[str, list[str]]:
    modules = sorted(str(p.relative_to(code_inputs.PACKAGE_DIR)) for p in code_inputs.PACKAGE_DIR.rglob("*.py"))
    return {m: code_inputs.data_files((code_inputs.PACKAGE_DIR / m).read_text(encoding="utf-8"), m) for m in modules}


def readers(data_file: str) -> set[str]:
    """The library modules whose code reads `data_file`."""
    return {module for module, files in _reads().items() if data_file in files}


def rerun_by(data_file: str) -> set[str]:
    """The probes whose jobs list `data_file` as an input: those an edit to it re-runs."""
    return {name for name in REGISTRY if data_file in source_files(name)}


def test_editing_one_word_list_reruns_exactly_the_probes_whose_code_reads_it():
    word_files = sorted(
        str(p.relative_to(code_inputs.PACKAGE_DIR))
        for folder in ("words", "probes/words")
        for p in (code_inputs.PACKAGE_DIR / folder).glob("*.txt")
    )
    assert len(word_files) > 30
    for data_file in word_files:
        modules = readers(data_file)
        assert modules, f"{data_file} is read by no module: an edit to it would re-run nothing"
        expected = {name for name in REGISTRY if modules & set(source_files(name))}
        assert rerun_by(data_file) == expected, data_file
    # a list of one helper re-runs the probes that import that helper, and no others
    assert readers("probes/words/hedges.txt") == {"probes/infotabs/hypothesis/edits/negation.py"}
    hedges = rerun_by("probes/words/hedges.txt")
    assert hedges == {"negation_flip"}  # not the other hypothesis edits (quantifier_flip, temporal_flip)
    # ... and a list of what all the hypothesis edits read, all of them
    negated = rerun_by("probes/words/other_negations.txt")
    assert {"negation_flip", "quantifier_flip", "temporal_flip", "duration_flip", "entity_preserve"} <= negated
    assert not {"num_words", "row_deletion", "cf_title_swap", "original"} & negated
    titles = rerun_by("probes/words/honorifics.txt")
    assert "cf_title_swap" in titles and "negation_flip" not in titles and titles != hedges
    identity = rerun_by("probes/words/identity_keys.txt")
    assert {"row_insertion", "row_update"} <= identity and "num_words" not in identity
    # the aligner's lists re-run the relevance step (and through its files the evidence probes), no probe's code
    for data_file in ("words/key_cues.txt", "words/stopwords.txt", "words/demonyms.txt"):
        assert rerun_by(data_file) == set(), data_file
        assert data_file in of("find_relevant_rows") and data_file not in of("generate_probe"), data_file
    # the months are read by both: the date edits' probes re-run, and the relevance step
    assert readers("words/months.txt") == {"probes/infotabs/hypothesis/edits/dates.py", "data/infobox/aligner.py"}
    assert "words/months.txt" in of("find_relevant_rows")
    assert rerun_by("words/months.txt") == {"temporal_flip", "temporal_preserve"}
